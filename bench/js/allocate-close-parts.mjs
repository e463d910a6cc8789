// Where the time of memory.deviceAllocateClose4KiB and memory.readMostlySet (bench/rows.mjs) goes
// inside @cumem/memory: the row's operation, the adapter's bare driver calls, and each piece of
// the bookkeeping on its own, measured side by side (every repetition runs every batch once, in
// an order that rotates, and each batch's median is printed), so a slow spell of the machine
// falls on all of them alike. Not a bench row: for finding and pinning the JS cost.
//
// Usage (after `pnpm build`):
//   node --expose-gc bench/js/allocate-close-parts.mjs --driver ffi|napi|reference \
//     [--reps 11] [--iterations 100000] [--dist path/to/other/packages/memory/dist] \
//     [--against path/to/another/packages/memory/dist] [--library path/to/libcuda.so.1]
// --against loads a second build of @cumem/memory into the same process and times its
// allocate + close rows (`against.*`) interleaved with this build's, so a before/after
// comparison on a shared machine sees the same load on both. --library loads the ffi or napi
// adapter against that libcuda (testing/fake-libcuda's, whose entry points do almost nothing):
// memory's cost between real native calls, on a CPU without a GPU. With FAKE_CUDA_FOOTPRINT_KIB=64
// in the environment, the fake's allocate, free and advise each touch 64 KiB of their own, as a
// real driver call evicts the caller's data from the CPU's first-level cache: on the 2-core
// development VM that took @cumem/memory's own share from 58-70 ns to 83-118 ns (N-API and FFI,
// 2026-11-27), about half the way to the 148-223 ns measured between the real driver's calls on
// H100 hosts: the share depends on what the driver's calls leave in the caches, which is one
// reason it is larger there than on this VM.
// `reference` needs no GPU: @cumem/testing's reference driver with its allocate, free and advise
// replaced by calls that do nothing (the reference driver's own bookkeeping costs microseconds,
// which would bury the few hundred nanoseconds measured here), so `whole - driverPair` is
// @cumem/memory's own cost on this CPU. On a GPU, ffi and napi time the real driver.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadDriverPackage, optionValue, sideBySideNs } from './harness.mjs';

const adapter = optionValue('--driver', 'reference');
const reps = Number(optionValue('--reps', '11'));
const iterations = Number(optionValue('--iterations', '100000'));
// A build's folder, relative to the working directory or absolute, as a URL to import from.
const distUrl = (folder) => pathToFileURL(`${resolve(folder)}/`);
// --dist DIR: another build of @cumem/memory of this layout (src/buffer/, src/stream/: from the
// Buffer-state class on). An earlier build's internals had other files and signatures: compare
// one through --against, which times it through its public API alone.
const dist = distUrl(
  optionValue('--dist', fileURLToPath(new URL('../../packages/memory/dist', import.meta.url))),
);
const load = (path) => import(new URL(path, dist).href);
const { Buffer, DeviceMemoryResource, ManagedMemoryResource, Stream, trackAllocations, useDriver } =
  await load('index.js');
const { bufferState } = await load('internal.js');
const { allocatedBuffer } = await load('buffer/buffer-construction.js');
const { bufferKind } = await load('buffer/buffer.js');
const { closedInBatch, deferRelease } = await load('buffer/buffer-release.js');
const { LiveAllocations } = await load('buffer/live-allocations.js');
const { streamOption } = await load('stream/stream-options.js');

/** As harness.mjs's sideBySideNs (rotating order), the fastest repetition of each batch. */
function bestOfNs(batches, n, repetitions) {
  const names = Object.keys(batches);
  const best = Object.fromEntries(names.map((name) => [name, Number.POSITIVE_INFINITY]));
  for (const name of names) batches[name](n);
  for (let rep = 0; rep < repetitions; rep++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(rep + k) % names.length];
      const start = process.hrtime.bigint();
      batches[name](n);
      best[name] = Math.min(best[name], Number(process.hrtime.bigint() - start) / n);
    }
  }
  return Object.fromEntries(names.map((name) => [name, Number(best[name].toFixed(1))]));
}

/** The reference driver with the timed calls stubbed out: fresh addresses, nothing recorded. */
async function stubbedReferenceDriver() {
  const driver = (await loadDriverPackage('reference')).createDriver();
  let next = 0x7f00_0000_0000n;
  driver.memAllocFromPoolAsync = () => {
    next += 4096n;
    return next;
  };
  driver.memFreeAsync = () => {};
  driver.memAdvise = () => {};
  return driver;
}

const library = optionValue('--library', undefined);
const driverFor = async () =>
  adapter === 'reference'
    ? await stubbedReferenceDriver()
    : library === undefined
      ? adapter
      : (await loadDriverPackage(adapter)).createDriver({ libraryPath: library });
useDriver(await driverFor());
const stream = Stream.create(0, { nonBlocking: true });
const on = { stream };
const resource = new DeviceMemoryResource(0);
const statistics = new DeviceMemoryResource(0).enableStatistics();
const trackedResource = new DeviceMemoryResource(0);
const tracker = trackAllocations({ resource: trackedResource });
const driver = resource.runtime.driver;
const runtime = resource.runtime;
const pool = resource.handle;
const handle = stream.handle;
const managed = new ManagedMemoryResource().allocate(2 * 1024 * 1024, on);
stream.sync();
const location = { type: 1, id: 0 };
// The bench's own books, on a stand-in resource: a LiveAllocations registers itself as its
// resource's, and one made on `resource` would take the place of the resource's own books.
const standIn = { deviceId: 0, isClosed: false };
const live = new LiveAllocations(standIn);
const counted = new LiveAllocations(standIn);
counted.account();
// What the batch pieces queue: a flush asks each queued buffer's state (buffer-state.ts) whether
// it owns memory; these wrappers, made beforehand, own none (a flush registers none), taken in turn.
const wrappers = Array.from({ length: 1024 }, (_, i) => Buffer.fromHandle(BigInt(0x10000 + i * 64), 64));
const wrapperStates = wrappers.map((wrapper) => bufferState(wrapper));
const sink = [];

const allocateClose = (mr) => (n) => {
  for (let i = 0; i < n; i++) mr.allocate(4096, on).close(on);
  stream.sync();
};
const batches = {
  // The row's operation, and its variants.
  whole: allocateClose(resource),
  wholeDefaultStream: (n) => {
    for (let i = 0; i < n; i++) resource.allocate(4096).close();
    stream.sync();
  },
  statistics: allocateClose(statistics),
  tracking: allocateClose(trackedResource),
  // The adapter's two calls, nothing of @cumem/memory.
  driverPair: (n) => {
    for (let i = 0; i < n; i++) driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, handle), handle);
    driver.streamSynchronize(handle);
  },
  // Pieces, each as often as one pair uses it.
  streamOptionTwice: (n) => {
    let found = 0;
    for (let i = 0; i < n; i++) {
      const first = streamOption(on);
      found += first === streamOption(on) ? 1 : 0;
    }
    sink.push(found);
  },
  makeCurrentTwice: (n) => {
    for (let i = 0; i < n; i++) {
      runtime.makeCurrent(0);
      runtime.makeCurrent(0);
    }
  },
  liveAddDelete: (n) => {
    let pointer = 0x7e00_0000_0000n;
    for (let i = 0; i < n; i++) {
      pointer += 4096n;
      live.add(pointer, 4096);
      live.delete(pointer, 4096);
    }
  },
  // The same with statistics on: what `statistics - whole` should cost.
  liveAddDeleteCounted: (n) => {
    let pointer = 0x7e00_0000_0000n;
    for (let i = 0; i < n; i++) {
      pointer += 4096n;
      if (counted.accounting.fits(4096)) counted.add(pointer, 4096);
      counted.delete(pointer, 4096);
    }
  },
  // Buffer construction (its BufferState, and the buffer holding it in a private field) and close
  // of an empty buffer, which frees nothing and registers nothing.
  bufferObject: (n) => {
    for (let i = 0; i < n; i++) allocatedBuffer(bufferKind, runtime, 0n, 0, resource, stream).close(on);
  },
  deferReleaseBatch: (n) => {
    for (let i = 0; i < n; i++) deferRelease(wrappers[i & 1023], wrapperStates[i & 1023]);
  },
  // As allocate + close use the batch: every buffer queued is closed before the flush, which
  // then skips asking each (close() tells closedInBatch).
  deferReleaseClosed: (n) => {
    for (let i = 0; i < n; i++) {
      deferRelease(wrappers[i & 1023], wrapperStates[i & 1023]);
      closedInBatch();
    }
  },
  // The advice setter and the driver call under it.
  readMostlySet: (n) => {
    for (let i = 0; i < n; i++) managed.readMostly = (i & 1) === 0;
  },
  driverAdvise: (n) => {
    const pointer = managed.handle;
    for (let i = 0; i < n; i++) driver.memAdvise(pointer, 2 * 1024 * 1024, (i & 1) === 0 ? 1 : 2, location);
  },
};

// The rows of another build, in the same process: its own module instances, driver and stream.
const againstDist = optionValue('--against', undefined);
let againstClose = () => {};
if (againstDist !== undefined) {
  const other = await import(new URL('index.js', distUrl(againstDist)).href);
  other.useDriver(await driverFor());
  const otherStream = other.Stream.create(0, { nonBlocking: true });
  const otherOn = { stream: otherStream };
  const rows = {
    whole: new other.DeviceMemoryResource(0),
    statistics: new other.DeviceMemoryResource(0).enableStatistics(),
    tracking: new other.DeviceMemoryResource(0),
  };
  const otherTracker = other.trackAllocations({ resource: rows.tracking });
  for (const [name, mr] of Object.entries(rows)) {
    batches[`against.${name}`] = (n) => {
      for (let i = 0; i < n; i++) mr.allocate(4096, otherOn).close(otherOn);
      otherStream.sync();
    };
  }
  const otherManaged = new other.ManagedMemoryResource().allocate(2 * 1024 * 1024, otherOn);
  batches['against.readMostlySet'] = (n) => {
    for (let i = 0; i < n; i++) otherManaged.readMostly = (i & 1) === 0;
  };
  againstClose = () => {
    otherTracker.close();
    otherManaged.close(otherOn);
    otherStream.sync();
  };
}

// --best: each batch's fastest repetition instead of the median, for comparing builds on a
// machine other work shares (a repetition another process preempted only ever runs slower).
const ns = process.argv.includes('--best')
  ? bestOfNs(batches, iterations, reps)
  : sideBySideNs(batches, iterations, reps);
againstClose();
tracker.close();
managed.close(on);
stream.sync();
console.log(
  JSON.stringify({
    adapter: driver.name,
    iterations,
    reps,
    ns,
    memoryCost: Number((ns.whole - ns.driverPair).toFixed(1)),
    statisticsCost: Number((ns.statistics - ns.whole).toFixed(1)),
    trackingCost: Number((ns.tracking - ns.whole).toFixed(1)),
    adviceCost: Number((ns.readMostlySet - ns.driverAdvise).toFixed(1)),
  }),
);
