// @cumem/memory rows: memory resources, Buffer copies and ManagedBuffer advice/prefetch, with
// the adapter chosen through useDriver(), as a user would.
import { Device, Host } from '@cumem/core-types';
import {
  bandwidthGBps,
  callsNs,
  collectGarbage,
  driverChoice,
  fillPattern,
  median,
  parseArguments,
  result,
  Suite,
  sideBySideNs,
} from './harness.mjs';
import { bareKoffiAdvise, bareKoffiPoolPair } from './koffi-floor.mjs';

const COPY_BYTES = 256 * 1024 * 1024;
const PREFETCH_BYTES = 1024 * 1024 * 1024;
const ADVISE_BYTES = 2 * 1024 * 1024;
// Operations per repetition: the same in bench/c/memory.c, bench/python/memory.py and rows.mjs.
const ALLOCATE_CLOSE_ITERATIONS = 100_000;
// Untimed warm-up of the allocate + close rows, the same in bench/c/memory.c and
// bench/python/memory.py: in a process's first seconds the pool pair itself ran slow on the H100
// hosts (bench/js/allocate-close-order.mjs: 1735 ns per pair at 1.9 s into an FFI process, 990 at
// 4.7 s; a CPU profile put the extra time inside the two driver calls, not in JavaScript), so
// the row's value depended on when in its process the row ran. Each implementation now repeats
// the row's work this long before timing it.
const ALLOCATE_CLOSE_WARMUP = { warmupMs: 2000 };
const READ_MOSTLY_ITERATIONS = 100_000;
// Allocations per repetition of the tracking row's `stacks` variant (each records a stack).
const STACKS_ITERATIONS = 5_000;

const options = parseArguments();
const suite = new Suite('memory', options);

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

const onStream = { stream };

await suite.row('memory.deviceAllocateClose4KiB', 'ns', () => {
  const resource = new memory.DeviceMemoryResource(device);
  const batch = (n) => {
    for (let i = 0; i < n; i++) resource.allocate(4096, onStream).close(onStream);
    stream.sync();
  };
  const { samples, protocol } = callsNs(batch, ALLOCATE_CLOSE_ITERATIONS, ALLOCATE_CLOSE_WARMUP);
  return result(samples, 'ns', {
    protocol,
    via: 'DeviceMemoryResource.allocate + Buffer.close',
    variants: partsOfAllocateClose(resource, batch),
  });
});

/**
 * Where the row's time goes, measured side by side (sideBySideNs): `whole` is the row's operation,
 * `driverPair` the same adapter's memAllocFromPoolAsync + memFreeAsync on the resource's pool, so
 * `whole - driverPair` is @cumem/memory's own cost; for FFI, `bareKoffiPair` is the two driver
 * calls declared straight through koffi, and `koffiFloor` = bareKoffiPair + memory's cost: what
 * this row would take with an FFI adapter that cost nothing beyond koffi itself.
 */
function partsOfAllocateClose(resource, whole) {
  const driver = memory.currentDriver();
  const pool = resource.handle;
  const handle = stream.handle;
  const batches = {
    whole,
    driverPair: (n) => {
      for (let i = 0; i < n; i++)
        driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, handle), handle);
      driver.streamSynchronize(handle);
    },
  };
  if (options.driver === 'ffi') batches.bareKoffiPair = bareKoffiPoolPair(pool, handle);
  const parts = sideBySideNs(batches, ALLOCATE_CLOSE_ITERATIONS);
  const memoryCost = parts.whole - parts.driverPair;
  return {
    ...parts,
    memoryCost: Number(memoryCost.toFixed(1)),
    ...(parts.bareKoffiPair === undefined
      ? {}
      : { koffiFloor: Number((parts.bareKoffiPair + memoryCost).toFixed(1)) }),
  };
}

// The same pairs with statistics on, then under a tracker (without and with stack traces).
function allocateCloseBatch(resource) {
  return (n) => {
    for (let i = 0; i < n; i++) resource.allocate(4096, onStream).close(onStream);
    stream.sync();
  };
}

await suite.row('memory.deviceAllocateClose4KiB.statistics', 'ns', () => {
  const resource = new memory.DeviceMemoryResource(device).enableStatistics();
  const { samples, protocol } = callsNs(
    allocateCloseBatch(resource),
    ALLOCATE_CLOSE_ITERATIONS,
    ALLOCATE_CLOSE_WARMUP,
  );
  const counted = resource.statistics().allocations.total;
  return result(samples, 'ns', { protocol, via: `enableStatistics(); ${counted} allocations counted` });
});

await suite.row('memory.deviceAllocateClose4KiB.tracking', 'ns', () => {
  const resource = new memory.DeviceMemoryResource(device);
  const measure = (stacks, iterations) => {
    const tracker = memory.trackAllocations({ resource, stacks });
    try {
      return callsNs(allocateCloseBatch(resource), iterations, ALLOCATE_CLOSE_WARMUP);
    } finally {
      tracker.close();
    }
  };
  const { samples, protocol } = measure(false, ALLOCATE_CLOSE_ITERATIONS);
  // A stack per allocation costs ~20 us: at the row's count this informative variant took ~26 s
  // of each JS adapter's memory process on the H100 hosts (about a third of that process).
  const withStacks = measure(true, STACKS_ITERATIONS);
  return result(samples, 'ns', {
    protocol,
    via: 'trackAllocations({ resource })',
    variants: { stacks: median(withStacks.samples) },
  });
});

// One set of buffers serves the three copy rows: pinned source, device, pinned destination.
let copyBuffers;
function copySetup() {
  if (copyBuffers) return copyBuffers;
  const pinned = new memory.PinnedMemoryResource();
  const deviceResource = new memory.DeviceMemoryResource(device);
  const source = pinned.allocate(COPY_BYTES, onStream);
  const target = pinned.allocate(COPY_BYTES, onStream);
  const onDevice = deviceResource.allocate(COPY_BYTES, onStream);
  const second = deviceResource.allocate(COPY_BYTES, onStream);
  stream.sync();
  fillPattern(source.hostView(), 11);
  // Round trip once before timing, and check it, so the timed copies are known to move data.
  onDevice.copyFrom(source, onStream);
  second.copyFrom(onDevice, onStream);
  target.copyFrom(second, onStream);
  stream.sync();
  const sent = source.hostView();
  const received = target.hostView();
  for (const offset of [0, COPY_BYTES / 2, COPY_BYTES - 4096]) {
    for (let i = offset; i < offset + 4096; i++) {
      if (sent[i] !== received[i]) throw new Error(`round trip differs at byte ${i}`);
    }
  }
  copyBuffers = { source, target, onDevice, second };
  return copyBuffers;
}

function copyRow(destination, source, perRep) {
  const batch = (n) => {
    for (let i = 0; i < n; i++) destination.copyFrom(source, onStream);
    stream.sync();
  };
  return result(bandwidthGBps(batch, COPY_BYTES, { perRep, reps: 7 }), 'GB/s', {
    via: 'Buffer.copyFrom (PinnedMemoryResource / DeviceMemoryResource buffers)',
  });
}

await suite.row('memory.copyHtoD256MiB', 'GB/s', () => {
  const { source, onDevice } = copySetup();
  return copyRow(onDevice, source, 8);
});

await suite.row('memory.copyDtoH256MiB', 'GB/s', () => {
  const { target, onDevice } = copySetup();
  return copyRow(target, onDevice, 8);
});

await suite.row('memory.copyDtoD256MiB', 'GB/s', () => {
  const { onDevice, second } = copySetup();
  return copyRow(second, onDevice, 20);
});

if (copyBuffers) {
  for (const buffer of Object.values(copyBuffers)) buffer.close(onStream);
  stream.sync();
  copyBuffers = undefined;
  collectGarbage();
}

await suite.row('memory.readMostlySet', 'ns', () => {
  const buffer = new memory.ManagedMemoryResource().allocate(ADVISE_BYTES, onStream);
  stream.sync();
  try {
    // Alternates, as the C floor does, so every setter call changes the advice.
    const batch = (n) => {
      for (let i = 0; i < n; i++) buffer.readMostly = (i & 1) === 0;
    };
    const { samples, protocol } = callsNs(batch, READ_MOSTLY_ITERATIONS);
    return result(samples, 'ns', {
      protocol,
      via: 'ManagedBuffer.readMostly setter',
      variants: partsOfReadMostly(buffer, batch),
    });
  } finally {
    buffer.close(onStream);
    stream.sync();
  }
});

await suite.row('memory.prefetchHtoD1GiB', 'GB/s', () => {
  const buffer = new memory.ManagedMemoryResource().allocate(PREFETCH_BYTES, onStream);
  const host = new Host();
  try {
    buffer.fill(0x5a, onStream);
    stream.sync();
    const samples = [];
    const toHost = [];
    for (let rep = -1; rep < 5; rep++) {
      const start = process.hrtime.bigint();
      buffer.prefetch(host, onStream);
      stream.sync();
      const middle = process.hrtime.bigint();
      buffer.prefetch(device, onStream);
      stream.sync();
      const end = process.hrtime.bigint();
      if (rep >= 0) {
        toHost.push(PREFETCH_BYTES / Number(middle - start));
        samples.push(PREFETCH_BYTES / Number(end - middle));
      }
    }
    return result(samples, 'GB/s', {
      via: 'ManagedBuffer.prefetch',
      variants: { deviceToHost: median(toHost) },
    });
  } finally {
    buffer.close(onStream);
    stream.sync();
  }
});

stream.close();

/**
 * Where the readMostlySet row's time goes, side by side as for allocate + close: `whole` the
 * setter, `driverAdvise` the adapter's memAdvise with the same arguments (so `whole -
 * driverAdvise` is @cumem/memory's cost), and for FFI `bareKoffiAdvise`, cuMemAdvise_v2 declared
 * straight through koffi (so `driverAdvise - bareKoffiAdvise` is the FFI adapter's own cost).
 */
function partsOfReadMostly(buffer, whole) {
  const driver = memory.currentDriver();
  const pointer = buffer.handle;
  const size = buffer.size;
  const location = { type: 1, id: device.ordinal }; // MemLocationType.Device
  const batches = {
    whole,
    driverAdvise: (n) => {
      for (let i = 0; i < n; i++) driver.memAdvise(pointer, size, (i & 1) === 0 ? 1 : 2, location);
    },
  };
  if (options.driver === 'ffi' && device.ordinal === 0)
    batches.bareKoffiAdvise = bareKoffiAdvise(pointer, size);
  const parts = sideBySideNs(batches, READ_MOSTLY_ITERATIONS);
  return {
    ...parts,
    memoryCost: Number((parts.whole - parts.driverAdvise).toFixed(1)),
    ...(parts.bareKoffiAdvise === undefined
      ? {}
      : { adapterCost: Number((parts.driverAdvise - parts.bareKoffiAdvise).toFixed(1)) }),
  };
}
