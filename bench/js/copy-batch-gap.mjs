// Where multi.copyBatchCrossDevice's `batch` / `auto` lose to `driverCall` on the GPU (the same
// 1024 x 64 KiB copies from device 0 to device 1 as one cuMemcpyBatchAsync, arrays packed
// beforehand). The row measures its variants one after another, each over 200 calls; on 2x H100
// `batch` sat 50-130 us above `driverCall` (7-11%), while copyBatch's JS over the stubbed driver
// takes ~20 us per call (copy-batch-parts.mjs). This probe takes the forms in turn call by call,
// so that a drift of the host or GPU falls on all alike, and splits each call into the time to
// issue (return of the call) and the time to finish (stream.sync() after it). The issue time is
// split again at the driver's cuMemcpyBatchAsync (the driver is wrapped, for every form alike):
// `before` (cumem's JS up to the call), `call` (the driver call itself) and `after`. On 2x H100
// at 016608b `batch` issued ~105 us after `driverCall` in every round, with both adapters, while
// copyBatch's JS took 39-62 us per call in copy-batch-parts.mjs on the same CPU: the split says
// whether the rest is JS that runs slower in place or a slower driver call. Not a bench row.
//
// Usage (two GPUs; after `pnpm build`):
//   node bench/js/copy-batch-gap.mjs --driver ffi|napi [--rounds 200]
import { loadDriverPackage, median, optionValue } from './harness.mjs';

const driverName = optionValue('--driver', 'ffi');
const rounds = Number(optionValue('--rounds', '200'));
const memory = await import('@cumem/memory');
const memoryInternal = await import('@cumem/memory/internal');
const utils = await import('@cumem/utils');
// Every form's cuMemcpyBatchAsync through one wrapper that notes when it was entered and left.
// (`--driver reference`: the reference driver with two devices, to try the probe without a GPU.)
const chosen = (await loadDriverPackage(driverName)).createDriver(
  driverName === 'reference' ? { deviceCount: 2 } : undefined,
);
const now = () => process.hrtime.bigint();
let entered = 0n;
let left = 0n;
// The driver's members as own properties (the adapters' are; the reference driver's methods are
// on its prototype chain), methods bound to it, accessors read once.
const members = {};
for (
  let source = chosen;
  source !== null && source !== Object.prototype;
  source = Object.getPrototypeOf(source)
) {
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(source))) {
    if (key in members || key === 'constructor') continue;
    const value = 'value' in descriptor ? descriptor.value : chosen[key];
    members[key] = typeof value === 'function' ? value.bind(chosen) : value;
  }
}
const callBatch = members.memcpyBatchAsync;
members.memcpyBatchAsync = (...args) => {
  entered = now();
  const result = callBatch(...args);
  left = now();
  return result;
};
memory.useDriver(Object.freeze(members));
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
const times = () => Object.fromEntries(names.map((name) => [name, []]));
const issue = times();
const total = times();
const before = times();
const call = times();
const after = times();
for (const name of names) {
  for (let i = 0; i < 5; i++) {
    forms[name]();
    stream.sync();
  }
}
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length];
    entered = 0n;
    const start = now();
    forms[name]();
    const issued = now();
    stream.sync();
    const done = now();
    const us = (from, to) => Number(to - from) / 1000;
    issue[name].push(us(start, issued));
    total[name].push(us(start, done));
    // `auto` takes the per-range form where the batch rule says so (no batch entry point): no split then.
    if (entered === 0n) continue;
    before[name].push(us(start, entered));
    call[name].push(us(entered, left));
    after[name].push(us(left, issued));
  }
}
const expect = new Uint8Array(RANGE_BYTES);
targets[RANGES - 1].copyTo(expect);
if (!expect.every((byte) => byte === 0x3c)) throw new Error('copyBatch left wrong bytes');
const summary = (values) =>
  values.length === 0
    ? { calls: 0 }
    : {
        calls: values.length,
        median: Number(median(values).toFixed(1)),
        p10: Number([...values].sort((a, b) => a - b)[Math.floor(values.length / 10)].toFixed(1)),
      };
console.log(
  JSON.stringify({
    driver: driverName,
    rounds,
    us: Object.fromEntries(
      names.map((name) => [
        name,
        {
          issue: summary(issue[name]),
          total: summary(total[name]),
          before: summary(before[name]),
          call: summary(call[name]),
          after: summary(after[name]),
        },
      ]),
    ),
  }),
);
