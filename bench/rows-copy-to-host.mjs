// The row of CudaBuffer.copyToHost into memory cumem allocates (issue 14), kept apart from
// rows.mjs; rows.mjs spreads it into its list.

/** Rows of js/pageable-copy-to-host.mjs (suite `pageable`). */
export const copyToHostRows = [
  {
    id: 'pageable.copyToHostNew256MiB',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      'CudaBuffer.copyToHost(): 256 MiB device to new memory cumem allocates (page-locked, from the pinned pool), allocation timed, close untimed (C like for like: cuMemAllocFromPoolAsync from a host pool that keeps its memory + cuMemcpyDtoHAsync + sync timed, cuMemFreeAsync untimed)',
    notApplicable: {
      cudaCore:
        "n/a: pyarrow.cuda's copy_to_host() allocates pageable memory from Arrow's pool, which is pageable.dtohNew256MiB's Python row (and pyarrow.cuda is not built on the GPU machine)",
    },
    checks: ['ffi', 'napi'].map((impl) => ({ impl, kind: 'minRatio', value: 0.97 })),
  },
];
