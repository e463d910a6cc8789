// Every stream cumem has made, per driver runtime, so that a Buffer dropped without close() is
// freed only after the work queued so far on every one of them.
//
// Its finalizer frees the memory on the stream it was allocated on, but a copy, fill or discard
// queued on another stream may still be using it, and a pool hands freed memory to the next
// allocation on the freeing stream at once: that allocation's work would then race the copy
// over the same bytes. Work queued on a stream before a point is all covered by an event
// recorded at that point, so the free waits (on the GPU, not the CPU) for one marker event per
// other stream. An explicit close() frees in the order its caller names, as in cuda.core and
// RMM: the caller knows where the memory was used; only a dropped buffer needs this.
//
// A stream destroyed while work is still queued on it (closed, or itself collected) leaves a
// tail event, recorded just before; later frees wait on the tail until it has completed, and
// then the stream is forgotten. (A Worker terminated before that leaves its tails behind, as it
// leaves its default streams: nothing runs in a terminated Worker.)
import { type DriverHandle, EventFlags } from '@cumem/core-types';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { perRuntimeState } from '../runtime/per-runtime-state.js';

/** One stream, as long as it may have work queued. */
export interface KnownStream {
  readonly handle: DriverHandle;
  readonly ordinal: number;
  /** The event recorded when the stream was retired (a raw `CUevent`), else null. */
  tail: DriverHandle | null;
  retired: boolean;
}

/** The streams of one runtime ({@link knownStreamsOf}). */
export class KnownStreams {
  private readonly streams = new Set<KnownStream>();

  constructor(private readonly runtime: DriverRuntime) {}

  /** Records a stream just made. */
  add(handle: DriverHandle, ordinal: number): KnownStream {
    this.forgetPassedTails();
    const known: KnownStream = { handle, ordinal, tail: null, retired: false };
    this.streams.add(known);
    return known;
  }

  /** Marks the end of a stream's work, just before its handle is destroyed (after which nothing can be queued on it). */
  retire(known: KnownStream): void {
    if (known.retired) return;
    known.retired = true;
    // An idle stream leaves nothing to wait for (and no event to clean up later).
    if (this.runtime.driver.streamQuery(known.handle)) {
      this.streams.delete(known);
      return;
    }
    known.tail = this.markerOn(known);
  }

  /**
   * Makes later work on `target` wait for the work queued on a retired stream before it was
   * retired (its tail), without blocking the CPU: what a closed stream's work still orders.
   * Nothing when that work has completed (or the stream was idle when retired).
   */
  waitForTail(target: DriverHandle, known: KnownStream): void {
    const tail = known.tail;
    if (tail === null) return;
    if (this.runtime.driver.eventQuery(tail)) {
      this.forget(known);
      return;
    }
    this.runtime.driver.streamWaitEvent(target, tail);
  }

  /**
   * Makes later work on `target` (a `CUstream` of device `ordinal`) wait for all work queued so
   * far on every other known stream, without blocking the CPU.
   */
  orderAfterAll(target: DriverHandle, ordinal: number): void {
    const driver = this.runtime.driver;
    for (const known of this.streams) {
      if (known.retired) {
        if (known.tail === null || driver.eventQuery(known.tail)) this.forget(known);
        else driver.streamWaitEvent(target, known.tail);
        continue;
      }
      if (known.handle === target) continue;
      const marker = this.markerOn(known);
      try {
        driver.streamWaitEvent(target, marker);
      } finally {
        // The driver keeps a recorded event alive until the wait is resolved.
        driver.eventDestroy(marker);
      }
    }
    this.runtime.makeCurrent(ordinal);
  }

  private markerOn(known: KnownStream): DriverHandle {
    this.runtime.makeCurrent(known.ordinal);
    const driver = this.runtime.driver;
    const marker = driver.eventCreate(EventFlags.DisableTiming);
    try {
      driver.eventRecord(marker, known.handle);
    } catch (error) {
      driver.eventDestroy(marker);
      throw error;
    }
    return marker;
  }

  private forgetPassedTails(): void {
    for (const known of this.streams) {
      if (known.tail !== null && this.runtime.driver.eventQuery(known.tail)) this.forget(known);
    }
  }

  private forget(known: KnownStream): void {
    this.streams.delete(known);
    if (known.tail !== null) this.runtime.driver.eventDestroy(known.tail);
    known.tail = null;
  }
}

/** The streams cumem made in `runtime`, which frees of dropped buffers wait for. */
export const knownStreamsOf = perRuntimeState((runtime) => new KnownStreams(runtime));
