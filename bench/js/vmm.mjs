// VirtualMemoryResource rows (bench/rows-vmm.mjs): allocate + free, grow in place against the
// pool alternative (allocate + copy + free), and device-to-device bandwidth in VMM memory.
import { Device } from '@cumem/core-types';
import { VMM_PAIR_WARMUP_REPS } from '../rows-vmm.mjs';
import { bandwidthGBps, driverChoice, parseArguments, result, Suite, stepsUs } from './harness.mjs';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const COPY_BYTES = 256 * MiB;

const options = parseArguments();
const suite = new Suite('vmm', options);

let memory;
let device;
let stream;
try {
  memory = await import('@cumem/memory');
  memory.useDriver(await driverChoice(options.driver));
  device = new Device(0);
  stream = memory.Stream.create(device, { nonBlocking: true });
  const driver = memory.currentDriver();
  suite.data.info = { ...suite.data.info, adapter: driver.name, driverVersion: driver.driverVersion };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

// The first repetition of a fresh process is timed apart (variant coldFirstRep): what a process
// pays before V8 has optimized allocate and close() (rows-vmm.mjs, VMM_PAIR_WARMUP_REPS).
function allocateFreeRow(bytes, perRep, reps, warmupReps = 1) {
  const mr = new memory.VirtualMemoryResource(device);
  const pair = () => mr.allocate(bytes).close();
  const start = process.hrtime.bigint();
  for (let i = 0; i < perRep; i++) pair();
  const coldFirstRep = Number(process.hrtime.bigint() - start) / 1e3 / perRep;
  const samples = stepsUs(pair, { perRep, reps, warmupReps: warmupReps - 1 });
  mr.close();
  return result(samples, 'us', {
    protocol: { stepsPerRep: perRep, reps, warmupReps, reset: 'none' },
    via: 'VirtualMemoryResource.allocate + Buffer.close',
    variants: { coldFirstRep: Number(coldFirstRep.toFixed(1)) },
  });
}

await suite.row('vmm.allocateFree2MiB', 'us', () => allocateFreeRow(2 * MiB, 50, 7, VMM_PAIR_WARMUP_REPS));
await suite.row('vmm.allocateFree1GiB', 'us', () => allocateFreeRow(GiB, 5, 5));

await suite.row('vmm.grow1To2GiBInPlace', 'us', () => {
  const mr = new memory.VirtualMemoryResource(device, { reserveSize: 2 * GiB });
  const buffer = mr.allocate(GiB);
  const handle = buffer.handle;
  let moved = false;
  const samples = stepsUs(
    () => {
      moved ||= mr.modifyAllocation(buffer, 2 * GiB).moved;
    },
    { setup: () => mr.modifyAllocation(buffer, GiB), perRep: 5, reps: 5 },
  );
  const kept = !moved && buffer.handle === handle;
  buffer.close();
  mr.close();
  if (!kept) throw new Error('the grow moved the buffer: reserveSize should have kept it in place');
  return result(samples, 'us', {
    protocol: { stepsPerRep: 5, reps: 5, warmupReps: 1, reset: 'none' },
    via: 'VirtualMemoryResource.modifyAllocation (shrink back untimed)',
  });
});

await suite.row('vmm.poolGrow1To2GiBByCopy', 'us', () => {
  const mr = new memory.DeviceMemoryResource(device, {});
  const onStream = { stream };
  let buffer = mr.allocate(GiB, onStream);
  buffer.fill(0x5a, onStream);
  stream.sync();
  const samples = stepsUs(
    () => {
      const grown = mr.allocate(2 * GiB, onStream);
      grown.slice(0, GiB).copyFrom(buffer, onStream);
      buffer.close(onStream);
      stream.sync();
      buffer = grown;
    },
    {
      setup: () => {
        // Back to 1 GiB, untimed.
        if (buffer.size === GiB) return;
        const small = mr.allocate(GiB, onStream);
        small.copyFrom(buffer.slice(0, GiB), onStream);
        buffer.close(onStream);
        stream.sync();
        buffer = small;
      },
      perRep: 5,
      reps: 5,
    },
  );
  buffer.close(onStream);
  stream.sync();
  mr.close();
  return result(samples, 'us', {
    protocol: { stepsPerRep: 5, reps: 5, warmupReps: 1, reset: 'none' },
    via: 'DeviceMemoryResource.allocate + Buffer.copyFrom + Buffer.close',
  });
});

await suite.row('vmm.copyDtoD256MiB', 'GB/s', () => {
  const mr = new memory.VirtualMemoryResource(device);
  const source = mr.allocate(COPY_BYTES);
  const destination = mr.allocate(COPY_BYTES);
  source.fill(0x3c);
  const onStream = { stream };
  const batch = (n) => {
    for (let i = 0; i < n; i++) destination.copyFrom(source, onStream);
    stream.sync();
  };
  const samples = bandwidthGBps(batch, COPY_BYTES, { perRep: 20, reps: 7 });
  source.close();
  destination.close();
  mr.close();
  return result(samples, 'GB/s', { via: 'Buffer.copyFrom between VirtualMemoryResource buffers' });
});

suite.save();
