// Where multi.copyBatchCrossDevice's `batch` / `auto` lose to `driverCall` on the GPU (the same
// 1024 x 64 KiB copies from device 0 to device 1 as one cuMemcpyBatchAsync, arrays packed
// beforehand). The row measures its variants one after another, each over 200 calls; on 2x H100
// `batch` sat 50-130 us above `driverCall` (7-11%), while copyBatch's JS over the stubbed driver
// takes ~20 us per call (copy-batch-parts.mjs). This probe takes the forms in turn call by call,
// so that a drift of the host or GPU falls on all alike, and splits each call into the time to
// issue (return of the call) and the time to finish (stream.sync() after it). Not a bench row.
//
// Usage (two GPUs; after `pnpm build`):
//   node bench/js/copy-batch-gap.mjs --driver ffi|napi [--rounds 200]
import { driverChoice, median, optionValue } from './harness.mjs';

const driverName = optionValue('--driver', 'ffi');
const rounds = Number(optionValue('--rounds', '200'));
const memory = await import('@cumem/memory');
const memoryInternal = await import('@cumem/memory/internal');
const utils = await import('@cumem/utils');
memory.useDriver(await driverChoice(driverName));
if (memory.deviceCount() < 2) {
  console.log(JSON.stringify({ driver: driverName, skipped: 'needs 2 GPUs' }));
  process.exit(0);
}

// As bench/js/multi.mjs's row.
const RANGES = 1024;
const RANGE_BYTES = 64 * 1024;
const RANGE_STRIDE = 128 * 1024;
const stream = memory.Stream.create(0);
const pools = [0, 1].map((device) => {
  const resource = new memory.DeviceMemoryResource(device, {});
  resource.peerAccessibleBy = [1 - device];
  return resource;
});
const source = pools[0].allocate(RANGES * RANGE_STRIDE);
const target = pools[1].allocate(RANGES * RANGE_STRIDE);
source.fill(0x3c);
target.fill(0);
const slices = (buffer) =>
  Array.from({ length: RANGES }, (_, i) => buffer.slice(i * RANGE_STRIDE, RANGE_BYTES));
const sources = slices(source);
const targets = slices(target);
const packed = (buffers) => BigUint64Array.from(buffers, (buffer) => buffer.handle);
const dstPointers = packed(targets);
const srcPointers = packed(sources);
const sizes = new BigUint64Array(RANGES).fill(BigInt(RANGE_BYTES));
const bound = () => memoryInternal.bindStreamDriver(stream);

const forms = {
  // The row's floor: one driver call over arrays packed once.
  driverCall: () => bound().memcpyBatchAsync(dstPointers, srcPointers, sizes, RANGES, stream.handle),
  // The same call over arrays packed in this call (fresh memory each time, as the driver sees it).
  driverCallFreshArrays: () =>
    bound().memcpyBatchAsync(packed(targets), packed(sources), sizes.slice(), RANGES, stream.handle),
  batch: () => utils.copyBatch(stream, targets, sources, undefined, { strategy: 'batch' }),
  auto: () => utils.copyBatch(stream, targets, sources),
};
const names = Object.keys(forms);
const issue = Object.fromEntries(names.map((name) => [name, []]));
const total = Object.fromEntries(names.map((name) => [name, []]));
const now = () => process.hrtime.bigint();
for (const name of names) {
  for (let i = 0; i < 5; i++) {
    forms[name]();
    stream.sync();
  }
}
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length];
    const start = now();
    forms[name]();
    const issued = now();
    stream.sync();
    const done = now();
    issue[name].push(Number(issued - start) / 1000);
    total[name].push(Number(done - start) / 1000);
  }
}
const expect = new Uint8Array(RANGE_BYTES);
targets[RANGES - 1].copyTo(expect);
if (!expect.every((byte) => byte === 0x3c)) throw new Error('copyBatch left wrong bytes');
const summary = (values) => ({
  median: Number(median(values).toFixed(1)),
  p10: Number([...values].sort((a, b) => a - b)[Math.floor(values.length / 10)].toFixed(1)),
});
console.log(
  JSON.stringify({
    driver: driverName,
    rounds,
    us: Object.fromEntries(
      names.map((name) => [name, { issue: summary(issue[name]), total: summary(total[name]) }]),
    ),
  }),
);
