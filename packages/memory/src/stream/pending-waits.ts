// A wait in flight (stream.syncAsync(), event.syncAsync()) keeps its Stream or Event, and so the
// driver handle, alive until it settles. Without this, `await stream.record().syncAsync()` left
// the Event unreachable while the driver waited on it: a GC ran the Event's finalizer, which
// destroyed the CUevent under cuEventSynchronize (a crash on the GPU). The objects are held here,
// strongly, and `close()` during a wait only marks the object closed: the handle is destroyed
// when the last wait on it settles (see `afterWaits`).
//
// A Worker terminated mid-wait takes this module with it: nothing settles into it afterwards
// (the adapters make sure of that), and the handle goes with the process's other undisposed
// objects of that Worker.

import { runOrWarn } from '../runtime/warn-on-failure.js';

const waiting = new Map<object, number>();

/**
 * Holds `owner` until `wait` settles, then, once no other wait holds it, runs `settled` (which
 * destroys a handle whose close() came during the wait). The result settles like `wait`.
 */
export function holdDuringWait(owner: object, wait: Promise<void>, settled: () => void): Promise<void> {
  waiting.set(owner, (waiting.get(owner) ?? 0) + 1);
  const release = () => {
    const left = (waiting.get(owner) ?? 1) - 1;
    if (left > 0) {
      waiting.set(owner, left);
      return;
    }
    waiting.delete(owner);
    // The wait's own outcome is what the caller asked for; a failed deferred destroy is reported.
    runOrWarn(settled, 'releasing an object after its wait');
  };
  return wait.then(release, (error: unknown) => {
    release();
    throw error;
  });
}

/** True while a wait started by {@link holdDuringWait} on `owner` has not settled. */
export function isWaitedOn(owner: object): boolean {
  return waiting.has(owner);
}

/** @internal How many objects waits hold now (tests). */
export function heldByWaits(): number {
  return waiting.size;
}
