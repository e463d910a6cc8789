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
import { loadDriverPackage, optionValue, sideBySideNs } from './harness.mjs';

const adapter = optionValue('--driver', 'reference');
const reps = Number(optionValue('--reps', '11'));
const iterations = Number(optionValue('--iterations', '100000'));
// --dist DIR: another build of @cumem/memory (a checkout of an earlier commit), to compare.
const dist = new URL(
  `${optionValue('--dist', new URL('../../packages/memory/dist', import.meta.url).pathname)}/`,
  'file:///',
);
const { Buffer, DeviceMemoryResource, ManagedMemoryResource, Stream, trackAllocations, useDriver } =
  await import(new URL('index.js', dist).href);
const { allocatedBuffer } = await import(new URL('buffer.js', dist).href);
const releaseModule = await import(new URL('buffer-release.js', dist).href);
const { deferRelease } = releaseModule;
// Builds before issue 26's batch counter lack it: their piece then times deferRelease alone.
const closedInBatch = releaseModule.closedInBatch ?? (() => {});
const { LiveAllocations } = await import(new URL('live-allocations.js', dist).href);
const { streamOption } = await import(new URL('stream-options.js', dist).href);

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
const live = new LiveAllocations(resource);
const counted = new LiveAllocations(resource);
counted.account();
// What the batch pieces queue. Builds since ebf7ac4 ask buffer-base.ts's functions about each
// queued object at a flush, which know only Buffers: there, wrappers made beforehand (owning
// nothing, so a flush registers none), taken in turn. Earlier builds asked the object's own
// methods: there, a new object per call, as allocate hands deferRelease a new Buffer.
class Deferred {
  needsFinalizer() {
    return false;
  }
  finalizerRelease() {
    return () => {};
  }
  markRegistered() {}
}
const hooksOfBuffers = typeof releaseModule.setDeferredReleaseHooks === 'function';
const wrappers = hooksOfBuffers
  ? Array.from({ length: 1024 }, (_, i) => Buffer.fromHandle(BigInt(0x10000 + i * 64), 64))
  : [];
const queued = hooksOfBuffers ? (i) => wrappers[i & 1023] : () => new Deferred();
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
  // Buffer construction (private fields, preventExtensions) and close of an empty buffer, which
  // frees nothing and registers nothing.
  bufferObject: (n) => {
    for (let i = 0; i < n; i++) allocatedBuffer(Buffer, runtime, 0n, 0, resource, stream).close(on);
  },
  // V8's share of bufferObject: Object.preventExtensions is a runtime call for every object
  // (~40 ns on a 2026 x86 core), kept because it stops own properties shadowing a buffer's getters.
  preventExtensions: (n) => {
    for (let i = 0; i < n; i++) sink[i & 7] = Object.preventExtensions({ i });
  },
  deferReleaseBatch: (n) => {
    for (let i = 0; i < n; i++) deferRelease(queued(i));
  },
  // As allocate + close use the batch: every buffer queued is closed before the flush, which
  // then skips asking each (close() tells closedInBatch).
  deferReleaseClosed: (n) => {
    for (let i = 0; i < n; i++) {
      deferRelease(queued(i));
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
  const other = await import(new URL('index.js', new URL(`${againstDist}/`, 'file:///')).href);
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
