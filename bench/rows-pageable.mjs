// The rows of pageable JS memory (issue 14, suite `pageable`), kept apart from rows.mjs;
// rows.mjs spreads them into its list. Like for like (issue 47): cumem copies pageable memory
// through pinned chunks on several threads, so the C floor runs that algorithm with cumem's own
// parameters (staging-settings.ts, passed by run.mjs); the driver's direct copy is the C variant
// `direct`. The targets are the bulk rows' (>= 97% of C).

const both = (check) => [
  { impl: 'ffi', ...check },
  { impl: 'napi', ...check },
];

/** Rows of js/pageable.mjs, c/pageable.c and python/pageable.py (suite `pageable`). */
export const pageableRows = [
  {
    id: 'pageable.htod256MiB',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      "Buffer.copyFrom: 256 MiB pageable Uint8Array (already touched) to device, one shot (C: the same memory staged through pinned chunks with cumem's chunk size and threads; variant direct: cuMemcpyHtoD)",
    checks: both({ kind: 'minRatio', value: 0.97 }),
  },
  {
    id: 'pageable.dtohTouched256MiB',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      "Buffer.copyTo: 256 MiB device to a pageable Uint8Array already touched (C: staged into the same memory with cumem's parameters; variant direct: cuMemcpyDtoH)",
    checks: both({ kind: 'minRatio', value: 0.97 }),
  },
  {
    id: 'pageable.dtohNew256MiB',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      "Buffer.copyTo(new Uint8Array(256 MiB)): device to never-touched memory, allocation timed and release not, in every implementation (C: malloc + staged copy with cumem's parameters, free() untimed; variant direct: malloc + cuMemcpyDtoH)",
    checks: both({ kind: 'minRatio', value: 0.97 }),
  },
  {
    id: 'pageable.sizeSweep',
    suite: 'pageable',
    unit: '×',
    description:
      "Slowest ratio, over sizes 4 KiB to 1 GiB (x4) and both directions, of Buffer.copyFrom / copyTo to the same adapter's direct copy (memcpyHtoD / memcpyDtoH), each the median of repetitions that time both back to back in alternating order; variants: each size and direction",
    notApplicable: {
      c: "n/a: compares cumem's choice of copy with its own adapter's direct copy at each size",
      cudaCore: "n/a: compares cumem's choice of copy with its own adapter's direct copy at each size",
    },
    checks: both({ kind: 'min', value: 0.95 }),
  },
  {
    id: 'registered.htod256MiB',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      'Buffer.copyFrom: 256 MiB Uint8Array pinned in place with registerHostMemory, to device (C: cuMemHostRegister + cuMemcpyHtoD)',
    checks: both({ kind: 'minRatio', value: 0.97 }),
  },
  {
    id: 'registered.dtoh256MiB',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      'Buffer.copyTo: 256 MiB device to a Uint8Array pinned with registerHostMemory (C: cuMemHostRegister + cuMemcpyDtoH)',
    checks: both({ kind: 'minRatio', value: 0.97 }),
  },
  {
    id: 'arrow.tableToDevicePageable',
    suite: 'pageable',
    unit: 'GB/s',
    description:
      "tableToDevice: 22.4M rows (int32 + float64 pageable columns, 268 MB) (C: each column staged with cumem's parameters; variant direct: cuMemcpyHtoD of the same bytes)",
    notApplicable: {
      cudaCore:
        'n/a: pyarrow.cuda copies pageable buffers with the driver’s direct copy, as the C column does',
    },
    checks: both({ kind: 'minRatio', value: 0.97 }),
  },
];
