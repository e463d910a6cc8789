// Releasing buffers that are dropped without close(). Registering with a FinalizationRegistry
// costs 300-400 ns per object in V8 (measured on Node 20), more than the whole budget of an
// allocate + close pair, and most buffers are closed within moments of being made. So new
// buffers wait in a small batch, held strongly, and only those still open when the batch is
// flushed (after the current macrotask, or when the batch is full) get a finalizer. A dropped
// buffer is therefore collectable one event-loop turn later than it would otherwise be.
import { forgetFinalizer, type Release, registerFinalizer } from './object-finalizer.js';

/** What the batch needs from a buffer. */
export interface DeferredRelease {
  /** True while the object owns memory that must be freed if it is dropped. */
  needsFinalizer(): boolean;
  /** A function that frees the memory, referencing everything it needs except the object itself. */
  finalizerRelease(): Release;
  /** Called after the finalizer was registered, so close() knows to cancel it. */
  markRegistered(): void;
}

const batchSize = 256;
const pending: (DeferredRelease | undefined)[] = new Array(batchSize).fill(undefined);
let count = 0;
let scheduled = false;

function flush(): void {
  const n = count;
  count = 0;
  for (let index = 0; index < n; index++) {
    const target = pending[index] as DeferredRelease;
    pending[index] = undefined;
    if (target.needsFinalizer()) {
      registerFinalizer(target, target.finalizerRelease());
      target.markRegistered();
    }
  }
}

function flushFromTimer(): void {
  scheduled = false;
  flush();
}

/** Queues `target` so it gets a finalizer unless it is closed before the batch is flushed. Hot path. */
export function deferRelease(target: DeferredRelease): void {
  pending[count++] = target;
  if (count === batchSize) flush();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(flushFromTimer).unref();
  }
}

/** Cancels the finalizer of a registered target (after its explicit close). */
export function cancelRelease(target: DeferredRelease): void {
  forgetFinalizer(target);
}

/** Registers every queued buffer still open now (tests use it before forcing a GC). */
export function flushDeferredReleases(): void {
  flush();
}
