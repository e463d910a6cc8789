// The workload rows (issue 47), kept apart from rows.mjs; rows.mjs spreads them into its list.
// What users run: a pipeline, not one call in a loop. Each against C doing the same work with the
// same concurrency (bench/c/workloads.c; bench/js/workloads.mjs), kernels from
// bench/kernels/workloads.ptx for both.

const both = (check) => ['ffi', 'napi'].map((impl) => ({ impl, ...check }));
const noPython = {
  cudaCore:
    'n/a: no cuda.core / CuPy version of this workload yet (issue 47 left it for later; the Arrow one has pyarrow + CuPy)',
};

const inference = (streams) => ({
  id: streams === 1 ? 'workload.inference1Stream' : `workload.inference${streams}Streams`,
  suite: 'workloads',
  unit: 'req/s',
  description: `Inference-server loop on ${streams} stream${streams === 1 ? '' : 's'}: 256 requests, each an 8 MiB uint8 batch uploaded from page-locked memory, normalised to float32 by a kernel, 8 passes of a bandwidth-bound "model" kernel over the 32 MiB tensor, 1 MiB downloaded to page-locked memory; request i on stream i mod ${streams}, the host waiting for a stream's previous request and reading its answer before reusing its buffers (C: the same on the driver API)${
    streams === 4
      ? '; variants: copies alone and kernels alone per request (one stream), overOneStream, overlapAchieved = share of the time overlap could save that 4 streams saved'
      : ''
  }`,
  notApplicable: noPython,
  checks: both({ kind: 'minRatio', value: 0.97 }),
});

/** Rows of js/workloads.mjs and c/workloads.c (suite `workloads`). */
export const workloadRows = [
  inference(1),
  inference(2),
  inference(4),
  {
    id: 'workload.arrowFromDisk',
    suite: 'workloads',
    unit: 'GB/s',
    description:
      'Arrow from disk: an Arrow IPC file (id int32 + value float64; 512 MiB by default, --arrow-file-bytes) dropped from the page cache, read into page-locked memory, both columns to the device, filtered by a kernel (value > 0.9: about a tenth kept), the kept rows brought back as a table; file bytes per second of the whole (C: the same, column offsets from the generator instead of parsing the metadata; variants: diskGBps, pcieGBps and limitGBps = reading then copying each at its best; Python: pyarrow + CuPy)',
    checks: [...both({ kind: 'minRatio', value: 0.97 })],
  },
];
