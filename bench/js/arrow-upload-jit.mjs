// How the JS cost of one tableToDevice({ output }) falls as V8 optimizes it (why bench/js/arrow.mjs
// warms the JIT up with 2,000 small uploads): the copies and waits are stubbed out of the
// reference driver, so what is timed is @cumem/interop-arrow and Arrow JS's IPC writer alone.
// Prints the median µs per call over ranges of the call index.
//   node bench/js/arrow-upload-jit.mjs [upload|layout] [calls=2000]
// On the development CPU (2026-11-26): upload 1158 µs in calls 0-5, 438 in 10-20, 191 in
// 50-100, 122 in 200-500, 43 in 1000-2000; layoutTable alone 563, 254, 116, 107, 29.
import { tableFromArrays } from 'apache-arrow';
import { loadDriverPackage } from './harness.mjs';

const memory = await import('@cumem/memory');
const arrow = await import('@cumem/interop-arrow');
const driver = (await loadDriverPackage('reference')).createDriver();
for (const name of [
  'memcpyHtoDAsync',
  'memcpyAsync',
  'memcpyDtoHAsync',
  'streamSynchronize',
  'stagedCopyHtoD',
])
  driver[name] = () => {};
memory.useDriver(driver);
const context = new arrow.Context(0);
const ROWS = 1_000_000;
const table = tableFromArrays({
  id: arrow.newHostArray(Int32Array, ROWS),
  value: arrow.newHostArray(Float64Array, ROWS),
});
const output = context.deviceBuffer(arrow.layoutTable(table).byteLength);
const what = process.argv[2] ?? 'upload';
const calls = Number(process.argv[3] ?? 2000);
const call =
  what === 'layout'
    ? () => arrow.layoutTable(table)
    : () => arrow.tableToDevice(table, context, { output }).close();
const spans = [];
for (let i = 0; i < calls; i++) {
  const start = process.hrtime.bigint();
  call();
  spans.push(Number(process.hrtime.bigint() - start) / 1e3);
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[sorted.length >> 1].toFixed(0) : '-';
};
const bounds = [0, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
const ranges = bounds.slice(0, -1).map((from, k) => [from, bounds[k + 1]]);
console.log(
  what,
  ranges
    .filter(([from]) => from < calls)
    .map(([from, to]) => `${from}-${to}: ${median(spans.slice(from, to))}`)
    .join(', '),
  'µs',
);
