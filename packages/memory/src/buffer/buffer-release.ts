// Releasing buffers that are dropped without close(). Registering with a FinalizationRegistry
// costs 300-400 ns per object in V8 (measured on Node 20), more than the whole budget of an
// allocate + close pair, and most buffers are closed within moments of being made. So new
// buffers wait in a small batch, held strongly, and only those still open when the batch is
// flushed (after the current macrotask, or when the batch is full) get a finalizer. A dropped
// buffer is therefore collectable one event-loop turn later than it would otherwise be.
//
// Out-of-memory recovery cannot wait for finalizers: they run as tasks, after the failing
// allocate() has returned. So each registered buffer also gets a record with a WeakRef to it;
// after a forced collection, releaseDroppedBuffers() frees the memory of every record whose
// buffer is gone, at once. A record releases exactly once: whichever of the finalizer, the
// recovery scan and close() comes first empties it (release = null), and the others do nothing.
// The WeakRef is made only for buffers that outlive their batch (not on the allocate/close hot
// path), and not at all when recovery is turned off (setOutOfMemoryRecovery).
import { clearKeptObjects, garbageCollector } from '../diagnostics/garbage-collection.js';
import type { Release } from '../runtime/object-finalizer.js';
import { runOrWarn } from '../runtime/warn-on-failure.js';

/** One registered buffer's release; `release` null once done (closed or released). */
export class ReleaseRecord {
  constructor(
    readonly ref: WeakRef<object> | null,
    public release: Release | null,
  ) {}
}

/**
 * What the batch needs to know of a buffer: given once, by buffer-base.ts. Functions of the
 * package, not methods of the buffer, because `finalizerRelease(buffer)()` frees the memory of a
 * buffer that may still be open, and a method would let any program call it.
 */
export interface DeferredReleaseHooks<T extends object> {
  /** True while `target` owns memory that must be freed if it is dropped. */
  needsFinalizer(target: T): boolean;
  /** A function that frees the memory, referencing everything it needs except `target` itself. */
  finalizerRelease(target: T): Release;
  /** Called after the finalizer was registered, so close() can cancel it through `record`. */
  markRegistered(target: T, record: ReleaseRecord): void;
}

let hooks: DeferredReleaseHooks<object>;

/** Called once, by buffer-base.ts, when it loads. */
export function setDeferredReleaseHooks<T extends object>(given: DeferredReleaseHooks<T>): void {
  hooks = given as DeferredReleaseHooks<object>;
}

const batchSize = 256;
// A fresh array per batch: storing a new buffer into an array that survived a garbage collection
// takes the write barrier's slow path, into a young one not (~5 ns less a buffer on Node 20).
const newBatch = (): (object | undefined)[] => new Array(batchSize);
let pending = newBatch();
let count = 0;
// How many buffers of `pending` were closed since it was made (close() tells closedInBatch): when
// all were, as in a loop of allocate + close, the flush asks none of them (~4 ns a pair).
let closed = 0;
let scheduled = false;
// Records of registered buffers, for the recovery scan; compacted when half are done.
let records: ReleaseRecord[] = [];
let liveRecords = 0;
let keepWeakRefs = true;

const registry = new FinalizationRegistry<ReleaseRecord>((record) => {
  runRelease(record);
});

function runRelease(record: ReleaseRecord): boolean {
  const release = record.release;
  if (release === null) return false;
  record.release = null;
  liveRecords--;
  runOrWarn(release, 'releasing a dropped buffer');
  return true;
}

function flush(): void {
  const n = count;
  const batch = pending;
  if (n !== 0) pending = newBatch();
  const allClosed = closed === n;
  count = 0;
  closed = 0;
  for (let index = 0; !allClosed && index < n; index++) {
    const target = batch[index] as object;
    if (hooks.needsFinalizer(target)) {
      const record = new ReleaseRecord(
        keepWeakRefs ? new WeakRef(target) : null,
        hooks.finalizerRelease(target),
      );
      registry.register(target, record, record);
      liveRecords++;
      if (record.ref !== null) records.push(record);
      hooks.markRegistered(target, record);
    }
  }
  if (records.length > 64 && records.length > 2 * liveRecords) compact();
}

function compact(): void {
  records = records.filter((record) => record.release !== null);
}

function flushFromTimer(): void {
  scheduled = false;
  flush();
}

/** Queues `target` so it gets a finalizer unless it is closed before the batch is flushed. Hot path. */
export function deferRelease(target: object): void {
  // A full batch is flushed before `target` joins the next one, not after: flushed at once, the
  // buffer just made (still open, as every new one is) would get a WeakRef and a finalizer that
  // its close() a moment later cancels, in one allocate of every 256 (~8 ns a pair).
  if (count === batchSize) flush();
  pending[count++] = target;
  if (!scheduled) scheduleFlush();
}

// Out of line: once per macrotask, not per buffer (deferRelease is inlined into allocate).
function scheduleFlush(): void {
  scheduled = true;
  setImmediate(flushFromTimer).unref();
}

/**
 * Tells the batch that one of its queued targets was closed (a target queued, not yet
 * registered, that is closed is in the batch not yet flushed). Hot path.
 */
export function closedInBatch(): void {
  closed++;
}

/** Cancels the finalizer of a registered target (after its explicit close). */
export function cancelRelease(record: ReleaseRecord): void {
  if (record.release === null) return;
  record.release = null;
  liveRecords--;
  registry.unregister(record);
}

/** Registers every queued buffer still open now (tests use it before forcing a GC). */
export function flushDeferredReleases(): void {
  flush();
}

/** @internal Whether registered buffers get the WeakRef the recovery scan needs. */
export function keepReleaseWeakRefs(keep: boolean): void {
  keepWeakRefs = keep;
}

/**
 * Forces a garbage collection and frees, now, the memory of every buffer it found dropped
 * without close() (those the finalizer would free later). Only for out-of-memory recovery: a
 * full collection takes milliseconds.
 * @returns how many buffers were released; -1 when no garbage collector could be obtained.
 */
export function releaseDroppedBuffers(): number {
  flush();
  const collect = garbageCollector();
  if (collect === null) return -1;
  clearKeptObjects();
  collect();
  let released = 0;
  for (const record of records) {
    if (record.release !== null && record.ref?.deref() === undefined && runRelease(record)) released++;
  }
  compact();
  return released;
}
