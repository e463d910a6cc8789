// Streams and events; the two non-blocking waits poll (completion-poll.ts says why).

import type { DriverHandle } from '@cumem/core-types';
import { CUDA_ERROR_NOT_READY, pollUntilDone } from './completion-poll.js';
import type { DriverState } from './driver-state.js';
import { cudaError } from './error-check.js';
import { handleArgument, intArgument } from './handle-argument.js';

export function streamCreate(state: DriverState, flags: number, priority: number): DriverHandle {
  state.check(
    state.native.cuStreamCreateWithPriority(
      state.scratch.address,
      intArgument(flags, 'flags'),
      intArgument(priority, 'priority'),
    ),
    'cuStreamCreateWithPriority',
  );
  return state.scratch.u64[0]!;
}

export function streamDestroy(state: DriverState, stream: DriverHandle): void {
  state.check(state.native.cuStreamDestroy_v2(handleArgument(stream, 'stream')), 'cuStreamDestroy');
}

export function streamSynchronize(state: DriverState, stream: DriverHandle): void {
  state.check(state.native.cuStreamSynchronize(handleArgument(stream)), 'cuStreamSynchronize');
}

export function streamSynchronizeAsync(state: DriverState, stream: DriverHandle): Promise<void> {
  const streamArgument = handleArgument(stream, 'stream');
  const failure = (result: number) => cudaError(state.describe, result, 'cuStreamSynchronize');
  if (stream > 2n) return pollUntilDone(() => state.native.cuStreamQuery(streamArgument), failure);
  // The null stream (0), CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) mean "the calling
  // thread's context", which may be another one by the time a later poll runs: each poll queries
  // the stream in the context current now (as the N-API adapter's cuStreamSynchronize runs in
  // it). No event of the adapter's own is involved, so a Worker terminated mid-wait leaves nothing
  // behind (an event recorded for the wait would stay undestroyed there). The polls run on this
  // thread, so CU_STREAM_PER_THREAD stays this thread's stream.
  const found = state.native.cuCtxGetCurrent(state.scratch.address);
  if (found !== 0) return Promise.reject(failure(found));
  const caller = state.scratch.u64[0]!;
  return pollUntilDone(() => queryInContext(state, caller, streamArgument), failure);
}

/** `cuStreamQuery(stream)` with `context` current, the thread's own context restored after. */
function queryInContext(state: DriverState, context: DriverHandle, stream: number | bigint): number {
  const native = state.native;
  let result = native.cuCtxGetCurrent(state.scratch.address);
  if (result !== 0) return result;
  const previous = state.scratch.u64[0]!;
  if (previous === context) return native.cuStreamQuery(stream);
  result = native.cuCtxSetCurrent(context);
  if (result !== 0) return result;
  try {
    return native.cuStreamQuery(stream);
  } finally {
    native.cuCtxSetCurrent(previous);
  }
}

export function streamQuery(state: DriverState, stream: DriverHandle): boolean {
  const result = state.native.cuStreamQuery(handleArgument(stream, 'stream'));
  if (result === CUDA_ERROR_NOT_READY) return false;
  state.check(result, 'cuStreamQuery');
  return true;
}

export function streamWaitEvent(state: DriverState, stream: DriverHandle, event: DriverHandle): void {
  state.check(
    state.native.cuStreamWaitEvent(handleArgument(stream, 'stream'), handleArgument(event, 'event'), 0),
    'cuStreamWaitEvent',
  );
}

export function eventCreate(state: DriverState, flags: number): DriverHandle {
  state.check(
    state.native.cuEventCreate(state.scratch.address, intArgument(flags, 'flags')),
    'cuEventCreate',
  );
  return state.scratch.u64[0]!;
}

export function eventDestroy(state: DriverState, event: DriverHandle): void {
  state.check(state.native.cuEventDestroy_v2(handleArgument(event, 'event')), 'cuEventDestroy');
}

export function eventRecord(state: DriverState, event: DriverHandle, stream: DriverHandle): void {
  state.check(
    state.native.cuEventRecord(handleArgument(event, 'event'), handleArgument(stream, 'stream')),
    'cuEventRecord',
  );
}

export function eventSynchronize(state: DriverState, event: DriverHandle): void {
  state.check(state.native.cuEventSynchronize(handleArgument(event, 'event')), 'cuEventSynchronize');
}

export function eventSynchronizeAsync(state: DriverState, event: DriverHandle): Promise<void> {
  const eventArgument = handleArgument(event, 'event');
  return pollUntilDone(
    () => state.native.cuEventQuery(eventArgument),
    (result) => cudaError(state.describe, result, 'cuEventSynchronize'),
  );
}

export function eventQuery(state: DriverState, event: DriverHandle): boolean {
  const result = state.native.cuEventQuery(handleArgument(event, 'event'));
  if (result === CUDA_ERROR_NOT_READY) return false;
  state.check(result, 'cuEventQuery');
  return true;
}

export function eventElapsedTime(state: DriverState, start: DriverHandle, end: DriverHandle): number {
  // CUDA 12.8 added cuEventElapsedTime_v2 (CUDA 13 headers map the name to it). driver-kit's
  // chooseEntryPoints left one form bound: _v2 from 12.8, the original on older drivers and in
  // 'legacy' mode, and _v2 standing in for it in 'legacy' where the driver dropped the original.
  const native = state.native;
  const fn = native.cuEventElapsedTime_v2 ?? native.cuEventElapsedTime;
  state.check(
    fn!(state.scratch.address, handleArgument(start, 'start'), handleArgument(end, 'end')),
    'cuEventElapsedTime',
  );
  return state.scratch.f32[0]!;
}
