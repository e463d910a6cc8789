// Streams and events: the Driver contract's members that order work and wait for it.
import type { DriverHandle } from './handles.js';

/** Streams and events. Part of {@link Driver}. */
export interface DriverStreams {
  /** `cuStreamCreateWithPriority`. `flags`: `StreamFlags`. */
  streamCreate(flags: number, priority: number): DriverHandle;
  /** `cuStreamDestroy`: pending work still completes. */
  streamDestroy(stream: DriverHandle): void;
  /** `cuStreamSynchronize`: blocks the calling thread. */
  streamSynchronize(stream: DriverHandle): void;
  /**
   * Resolves when the stream is idle without blocking the event loop (N-API: `cuStreamSynchronize`
   * on a thread-pool thread; FFI: polling `cuStreamQuery`); rejects with the `CudaError`, whose
   * `call` is `'cuStreamSynchronize'` in every adapter. Never settles into, or aborts, a Worker
   * terminated meanwhile. The caller keeps `stream` alive until it settles.
   */
  streamSynchronizeAsync(stream: DriverHandle): Promise<void>;
  /** `cuStreamQuery`: true when all work is done, false while work is pending (`CUDA_ERROR_NOT_READY`). */
  streamQuery(stream: DriverHandle): boolean;
  /** `cuStreamWaitEvent`: later work on `stream` waits for `event`. */
  streamWaitEvent(stream: DriverHandle, event: DriverHandle): void;
  /** `cuEventCreate`. `flags`: `EventFlags`. */
  eventCreate(flags: number): DriverHandle;
  /** `cuEventDestroy`. */
  eventDestroy(event: DriverHandle): void;
  /** `cuEventRecord`. */
  eventRecord(event: DriverHandle, stream: DriverHandle): void;
  /** `cuEventSynchronize`: blocks the calling thread. */
  eventSynchronize(event: DriverHandle): void;
  /** Like {@link streamSynchronizeAsync} for an event (`cuEventSynchronize` / `cuEventQuery`; `call` `'cuEventSynchronize'`). */
  eventSynchronizeAsync(event: DriverHandle): Promise<void>;
  /** `cuEventQuery`: true when the event has completed. */
  eventQuery(event: DriverHandle): boolean;
  /** `cuEventElapsedTime`: milliseconds from `start` to `end`. */
  eventElapsedTime(start: DriverHandle, end: DriverHandle): number;
}
