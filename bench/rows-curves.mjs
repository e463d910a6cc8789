// The growth curves (issue 47), kept apart from rows.mjs; rows.mjs spreads them into its list.
// Informative rows without a target: each holds its points under `variants.<impl>.points` and
// its value is the growth (the per-item cost at the largest n over that at the smallest);
// bench/report.mjs draws one SVG per curve (bench/plot-svg.mjs), linked from bench/README.md.

const onlyCumem = {
  c: "n/a: a curve of cumem's own costs (its bookkeeping, its JS heap) as the work grows",
  cudaCore: "n/a: a curve of cumem's own costs (its bookkeeping, its JS heap) as the work grows",
};

const curve = (id, description) => ({
  id,
  suite: 'curves',
  unit: '×',
  description,
  notApplicable: onlyCumem,
  checks: [],
});

/** Rows of js/curves.mjs (suite `curves`, one process per adapter). */
export const curveRows = [
  curve(
    'curves.liveBuffers',
    'DeviceMemoryResource.allocate(256 B) + close() latency, and JS heap bytes per live buffer, with 1 to 1,000,000 buffers alive (value: latency at 1,000,000 over latency at 1)',
  ),
  curve(
    'curves.copyBatchRanges',
    'copyBatch of 1 to 65,536 ranges of 4 KiB device to device, per batch incl. sync (value: time per range at 65,536 over that at 1)',
  ),
  curve(
    'curves.tableColumns',
    'tableToDevice of 1 to 1,000 float32 columns totalling 256 MiB, incl. sync (value: time at 1,000 columns over that at 1)',
  ),
  curve(
    'curves.dlpackTensorsAlive',
    'toDLPack() + fromDLPack() + close() per tensor with 1 to 100,000 imported tensors alive (value: time at 100,000 over that at 1)',
  ),
];
