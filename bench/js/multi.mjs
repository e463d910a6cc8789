// Multi-GPU rows: 256 MiB Buffer copies between pool buffers of devices 0 and 1 (pools
// accessible by each other: cuMemcpyAsync; without access: cumem's peer path), and copyBatch of
// 1024 x 64 KiB from device 0 to device 1. Every copy is ordered on a stream of device 0, as in
// bench/c/multi.c. With fewer than two devices every row is reported as skipped.
// multi.peerCopyMatrix: every ordered pair of devices (the first MATRIX_DEVICES), 256 MiB pool to
// pool on a stream of the source device, every pool accessible by every other device.
import { bandwidthGBps, driverChoice, parseArguments, result, Suite, stepsUs } from './harness.mjs';

const COPY_BYTES = 256 * 1024 * 1024;
// The same in bench/c/multi.c and bench/python/multi.py.
const RANGES = 1024;
const RANGE_BYTES = 64 * 1024;
const RANGE_STRIDE = 128 * 1024;
const TOTAL_BYTES = RANGES * RANGE_STRIDE;
const COPY_STEPS_PER_REP = 20;
const COPY_REPS = 9;
const STRATEGIES = ['loop', 'batch', 'auto'];
// As MAX_DEVICES in bench/c/multi.c.
const MATRIX_DEVICES = 8;

const options = parseArguments();
const suite = new Suite('multi', options);

let memory;
let memoryInternal;
let utils;
let stream;
let skipped;
const accessible = [];
const bare = [];
try {
  memory = await import('@cumem/memory');
  memoryInternal = await import('@cumem/memory/internal');
  utils = await import('@cumem/utils');
  memory.useDriver(await driverChoice(options.driver));
  const driver = memory.currentDriver();
  suite.data.info = { ...suite.data.info, adapter: driver.name, driverVersion: driver.driverVersion };
  const count = memory.deviceCount();
  if (count < 2) skipped = `not applicable: needs 2 GPUs (${count} found)`;
  else if (!memory.canAccessPeer(0, 1) || !memory.canAccessPeer(1, 0))
    skipped = 'not applicable: devices 0 and 1 cannot access each other';
  if (!skipped) {
    stream = memory.Stream.create(0);
    for (const device of [0, 1]) {
      const granted = new memory.DeviceMemoryResource(device, {});
      granted.peerAccessibleBy = [1 - device];
      accessible.push(granted);
      bare.push(new memory.DeviceMemoryResource(device, {}));
    }
  }
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

const onStream = () => ({ stream });

/** Three 4096-byte samples of `buffer` must all be `value` (each copy is checked once before timing). */
function expectHolds(buffer, value, what) {
  const sample = new Uint8Array(4096);
  for (const offset of [0, buffer.size / 2, buffer.size - 4096]) {
    buffer.slice(offset, 4096).copyTo(sample);
    if (!sample.every((byte) => byte === value)) throw new Error(`${what}: wrong bytes at offset ${offset}`);
  }
}

async function peerCopyRow(id, from, withAccess) {
  await suite.row(id, 'GB/s', () => {
    if (skipped) return { skipped };
    const resources = withAccess ? accessible : bare;
    const to = 1 - from;
    const value = 0x31 + from + (withAccess ? 0 : 2);
    const source = resources[from].allocate(COPY_BYTES);
    const target = resources[to].allocate(COPY_BYTES);
    try {
      source.fill(value);
      target.fill(0);
      target.copyFrom(source, onStream());
      stream.sync();
      expectHolds(target, value, `copy from device ${from} to ${to}`);
      const batch = (n) => {
        for (let i = 0; i < n; i++) target.copyFrom(source, onStream());
        stream.sync();
      };
      return result(bandwidthGBps(batch, COPY_BYTES, { perRep: 8, reps: 7 }), 'GB/s', {
        via: `Buffer.copyFrom between DeviceMemoryResource buffers ${withAccess ? 'with' : 'without'} peerAccessibleBy`,
      });
    } finally {
      source.close();
      target.close();
    }
  });
}

await peerCopyRow('multi.peerCopy0to1', 0, true);
await peerCopyRow('multi.peerCopy1to0', 1, true);
await peerCopyRow('multi.peerCopyNoAccess0to1', 0, false);
await peerCopyRow('multi.peerCopyNoAccess1to0', 1, false);

await suite.row('multi.copyBatchCrossDevice', 'us', () => {
  if (skipped) return { skipped };
  const source = accessible[0].allocate(TOTAL_BYTES);
  const target = accessible[1].allocate(TOTAL_BYTES);
  try {
    source.fill(0x3c);
    target.fill(0);
    const sources = Array.from({ length: RANGES }, (_, i) => source.slice(i * RANGE_STRIDE, RANGE_BYTES));
    const targets = Array.from({ length: RANGES }, (_, i) => target.slice(i * RANGE_STRIDE, RANGE_BYTES));
    utils.copyBatch(stream, targets, sources);
    stream.sync();
    expectHolds(targets[0], 0x3c, 'copyBatch from device 0 to 1');
    const variants = {};
    for (const strategy of STRATEGIES) {
      const batchOptions = strategy === 'auto' ? undefined : { strategy };
      variants[strategy] = () =>
        stepsUs(
          () => {
            utils.copyBatch(stream, targets, sources, undefined, batchOptions);
            stream.sync();
          },
          { perRep: COPY_STEPS_PER_REP, reps: COPY_REPS },
        );
    }
    // The adapter's floor: the same 1024 copies as one driver call with arrays packed beforehand,
    // no cumem work per call. auto - driverCall = what copyBatch does per call in JS.
    if (memory.currentDriver().capabilities.batchMemcpy) {
      const packed = (buffers) => BigUint64Array.from(buffers, (buffer) => buffer.handle);
      const dstPointers = packed(targets);
      const srcPointers = packed(sources);
      const sizes = new BigUint64Array(RANGES).fill(BigInt(RANGE_BYTES));
      variants.driverCall = () =>
        stepsUs(
          () => {
            memoryInternal
              .bindStreamDriver(stream)
              .memcpyBatchAsync(dstPointers, srcPointers, sizes, RANGES, stream.handle);
            stream.sync();
          },
          { perRep: COPY_STEPS_PER_REP, reps: COPY_REPS },
        );
    }
    return Suite.variants('us', 'auto', variants, {
      via: 'copyBatch across devices, default strategy (auto; loop, batch and driverCall, the bare driver call, under variants)',
      protocol: { stepsPerRep: COPY_STEPS_PER_REP, reps: COPY_REPS, warmupReps: 1, reset: 'none' },
    });
  } finally {
    source.close();
    target.close();
  }
});

await suite.row('multi.peerCopyMatrix', 'GB/s', () => {
  if (skipped) return { skipped };
  const count = Math.min(memory.deviceCount(), MATRIX_DEVICES);
  for (let a = 0; a < count; a++) {
    for (let b = 0; b < count; b++) {
      if (a !== b && !memory.canAccessPeer(a, b))
        return { skipped: `not applicable: device ${a} cannot access device ${b}` };
    }
  }
  const devices = Array.from({ length: count }, (_, device) => device);
  const pools = devices.map((device) => {
    const pool = new memory.DeviceMemoryResource(device, {});
    pool.peerAccessibleBy = devices.filter((other) => other !== device);
    return pool;
  });
  const streams = devices.map((device) => memory.Stream.create(device));
  try {
    const pairs = {};
    let slowest;
    for (const from of devices) {
      for (const to of devices) {
        if (from === to) continue;
        const value = 0x41 + from * MATRIX_DEVICES + to;
        const source = pools[from].allocate(COPY_BYTES);
        const target = pools[to].allocate(COPY_BYTES);
        try {
          source.fill(value);
          target.fill(0);
          const onSource = { stream: streams[from] };
          target.copyFrom(source, onSource);
          streams[from].sync();
          expectHolds(target, value, `copy from device ${from} to ${to}`);
          const samples = bandwidthGBps(
            (n) => {
              for (let i = 0; i < n; i++) target.copyFrom(source, onSource);
              streams[from].sync();
            },
            COPY_BYTES,
            { perRep: 8, reps: 7 },
          );
          const measured = result(samples, 'GB/s');
          pairs[`${from}to${to}`] = measured.value;
          if (slowest === undefined || measured.value < slowest.value) slowest = measured;
        } finally {
          source.close();
          target.close();
        }
      }
    }
    return {
      ...slowest,
      variants: pairs,
      via: 'Buffer.copyFrom between DeviceMemoryResource buffers of every ordered pair, every pool peerAccessibleBy every other device, on a stream of the source; value = the slowest pair',
    };
  } finally {
    for (const item of [...streams, ...pools]) item.close();
  }
});

stream?.close();
for (const resource of [...accessible, ...bare]) resource.close();
