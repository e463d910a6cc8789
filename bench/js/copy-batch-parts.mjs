// The JS that @cumem/utils' batch operations spend around the driver call, per call of 1024
// ranges (the shape of multi.copyBatchCrossDevice and the utils.* batch rows: 1024 slices of 64
// KiB, 128 KiB apart, of one buffer per side), with the driver's batch and per-range entry
// points replaced by calls that do nothing. What is left is the per-range checking (brand,
// closed state, driver, sizes, cross-device reachability), the packing of the ranges and the
// per-call setup: what keeps multi.copyBatchCrossDevice above C (the bare driver call there is
// within a few percent of C's; copyBatch's JS is the rest). Batches run side by side (every
// repetition runs each once, in a rotating order) and each batch's median is printed, in us per
// call. Not a bench row: for finding and pinning the JS cost, on any CPU.
//
// Usage (after `pnpm build`; no GPU: the reference driver with two devices):
//   node bench/js/copy-batch-parts.mjs [--reps 11] [--calls 200] [--ranges 1024] \
//     [--only copyCrossBatch,prefetchBatch] [--dist DIR | --compare DIR]
// --dist DIR times another build of @cumem/utils instead of this one, --compare DIR times it
// beside this one (`<name>Before`): DIR is an earlier commit's packages/utils/dist copied under
// this checkout's packages/utils/node_modules/ (so that it resolves this @cumem/memory), e.g.
//   git -C ../other-checkout ... && cp -r ../other-checkout/packages/utils/dist \
//     packages/utils/node_modules/.dist-before
//   node bench/js/copy-batch-parts.mjs --compare $PWD/packages/utils/node_modules/.dist-before
import { loadDriverPackage, optionValue, sideBySideNs } from './harness.mjs';

const reps = Number(optionValue('--reps', '11'));
const calls = Number(optionValue('--calls', '200'));
const RANGES = Number(optionValue('--ranges', '1024'));
const dist = optionValue('--dist', undefined);
const compare = optionValue('--compare', undefined);
const memory = await import('@cumem/memory');
const build = (directory) => import(new URL(`${directory}/index.js`, 'file:///').href);
const utils = dist === undefined ? await import('@cumem/utils') : await build(dist);
// --compare DIR: every batch also through that build (`<name>Before`), side by side in one
// process, so a slow spell of a shared machine falls on both alike.
const before = compare === undefined ? undefined : await build(compare);

const RANGE_BYTES = 64 * 1024;
const RANGE_STRIDE = 128 * 1024;
const driver = (await loadDriverPackage('reference')).createDriver({ deviceCount: 2 });
memory.useDriver(driver);
const stream = memory.Stream.create(0);
const onStream = { stream };
// Both pools open to the other device: the copy stays one batch call (as in the bench row).
const pools = [0, 1].map((device) => {
  const resource = new memory.DeviceMemoryResource(device, {});
  resource.peerAccessibleBy = [1 - device];
  return resource;
});
const slices = (buffer) =>
  Array.from({ length: RANGES }, (_, i) => buffer.slice(i * RANGE_STRIDE, RANGE_BYTES));
const sources = slices(pools[0].allocate(RANGES * RANGE_STRIDE, onStream));
const crossTargets = slices(pools[1].allocate(RANGES * RANGE_STRIDE, onStream));
const sameTargets = slices(pools[0].allocate(RANGES * RANGE_STRIDE, onStream));
const managed = slices(new memory.ManagedMemoryResource().allocate(RANGES * RANGE_STRIDE, onStream));
stream.sync();

// The timed entry points do nothing: only cumem's JS is left.
let driverCalls = 0;
const nothing = () => {
  driverCalls++;
};
for (const name of [
  'memcpyBatchAsync',
  'memcpyAsync',
  'memPrefetchBatchAsync',
  'memPrefetchAsync',
  'memDiscardBatchAsync',
  'memDiscardAndPrefetchBatchAsync',
]) {
  driver[name] = nothing;
}

const device = new memory.Device(0);
const repeat = (operation) => (n) => {
  for (let i = 0; i < n; i++) operation();
};
const batchesOf = (utils) => ({
  // multi.copyBatchCrossDevice's call (device 0 -> device 1), each form forced, and the default.
  copyCrossBatch: repeat(() =>
    utils.copyBatch(stream, crossTargets, sources, undefined, { strategy: 'batch' }),
  ),
  copyCrossLoop: repeat(() =>
    utils.copyBatch(stream, crossTargets, sources, undefined, { strategy: 'loop' }),
  ),
  copyCrossAuto: repeat(() => utils.copyBatch(stream, crossTargets, sources)),
  // On one device (no reachability question), and with a size for every pair.
  copySameBatch: repeat(() =>
    utils.copyBatch(stream, sameTargets, sources, undefined, { strategy: 'batch' }),
  ),
  copySizesArray: repeat(() =>
    utils.copyBatch(stream, sameTargets, sources, sizesArray, { strategy: 'batch' }),
  ),
  // The managed batch operations over the same number of slices.
  prefetchBatch: repeat(() => utils.prefetchBatch(stream, managed, device, { strategy: 'batch' })),
  discardBatch: repeat(() => utils.discardBatch(stream, managed, { strategy: 'batch' })),
});
const batches = batchesOf(utils);
const sizesArray = Array.from({ length: RANGES }, () => RANGE_BYTES);

// --only a,b: those batches alone (each operation's code then sees one shape of arguments, as
// in a program that makes one kind of call; the default mixes them, as a bench process does).
const only = optionValue('--only', undefined)?.split(',');
const names = only ?? Object.keys(batches);
const chosen = Object.fromEntries(names.map((name) => [name, batches[name]]));
if (before !== undefined) {
  const earlier = batchesOf(before);
  for (const name of names) chosen[`${name}Before`] = earlier[name];
}
const nsPerCall = sideBySideNs(chosen, calls, reps);
const usPerCall = Object.fromEntries(
  Object.entries(nsPerCall).map(([name, ns]) => [name, Number((ns / 1000).toFixed(1))]),
);
console.log(
  JSON.stringify(
    { utils: dist ?? '@cumem/utils', compare, ranges: RANGES, calls, reps, usPerCall, driverCalls },
    null,
    1,
  ),
);
