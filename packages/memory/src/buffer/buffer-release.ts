// Releasing buffers that are dropped without close(). Registering with a FinalizationRegistry
// costs more than a whole allocate + close pair (bench/README.md), and most buffers are closed
// within moments of being made. So new buffers wait in a small batch, held strongly, and only
// those still open when the batch is flushed (after the current macrotask, or when the batch is
// full) get a finalizer. A dropped buffer is therefore collectable one event-loop turn later
// than it would otherwise be.
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
import { type BufferBase, bufferState } from './buffer-base.js';
import type { BufferState } from './buffer-state.js';

/** One registered buffer's release; `release` null once done (closed or released). */
export class ReleaseRecord {
  constructor(
    readonly ref: WeakRef<object> | null,
    public release: Release | null,
  ) {}
}

const batchSize = 256;
// A fresh array per batch: a store into a young array is cheaper for the garbage collector than
// one into an array that survived a collection.
const newBatch = (): (BufferBase | undefined)[] => new Array(batchSize);
let pending = newBatch();
let count = 0;
// How many buffers of `pending` were closed since it was made (close() tells closedInBatch): when
// all were, as in a loop of allocate + close, the flush asks none of them.
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
    const buffer = batch[index] as BufferBase;
    const state = bufferState(buffer);
    state.inFinalizerBatch = false;
    if (!state.ownsMemory || state.closed) continue;
    const record = new ReleaseRecord(
      keepWeakRefs ? new WeakRef(buffer) : null,
      state.kind.finalizerRelease(state),
    );
    registry.register(buffer, record, record);
    liveRecords++;
    if (record.ref !== null) records.push(record);
    state.releaseRecord = record;
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

/** Queues `buffer` so it gets a finalizer unless it is closed before the batch is flushed. Hot path. */
export function deferRelease(buffer: BufferBase, state: BufferState): void {
  // A full batch is flushed before `buffer` joins the next one, not after: flushed at once, the
  // buffer just made (still open, as every new one is) would get a WeakRef and a finalizer that
  // its close() a moment later cancels.
  if (count === batchSize) flush();
  pending[count++] = buffer;
  state.inFinalizerBatch = true;
  if (!scheduled) scheduleFlush();
}

// Once per macrotask, not per buffer.
function scheduleFlush(): void {
  scheduled = true;
  setImmediate(flushFromTimer).unref();
}

/** Tells the batch that one of its queued buffers was closed before the flush. Hot path. */
export function closedInBatch(): void {
  closed++;
}

/** Cancels the finalizer of a registered buffer (after its explicit close). */
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
