// The classic allocators (cuMemHostAlloc, cuMemAllocManaged) are not stream-ordered: their free
// takes effect at once. Freeing while queued work may still touch the memory would be a
// use-after-free, so a free first waits for the stream the memory is ordered on, as cuda.core's
// legacy resources do. This is the one place where close() without a stream waits.
import { checkAddress, checkSize } from '@cumem/core-types';
import { checkSameDriver, type DriverRuntime } from '../runtime/driver-runtime.js';
import { runtimeDefaultStream, Stream } from '../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../stream/stream-options.js';

/** Waits for `stream` (or the default stream of `ordinal`) before a non-stream-ordered free. */
export function waitBeforeFree(runtime: DriverRuntime, ordinal: number, stream: Stream | undefined): void {
  const target =
    stream === undefined || !Stream.isOpenStream(stream) ? runtimeDefaultStream(runtime, ordinal) : stream;
  runtime.makeCurrent(target.ordinal);
  // A stream with nothing pending (cuStreamQuery: all its work complete) needs no wait: the
  // query costs less than a synchronize, and frees on an idle stream are the common case.
  const driver = runtime.driver;
  if (!driver.streamQuery(target.streamHandle)) driver.streamSynchronize(target.streamHandle);
}

/** The checked arguments of a classic resource's `deallocate`. */
export function deallocateArguments(
  runtime: DriverRuntime,
  pointer: bigint | number,
  size: number,
  options: StreamOrderOptions | undefined,
): { handle: bigint; stream: Stream | undefined } {
  const handle = checkAddress(pointer, 'pointer');
  checkSize(size, 'size');
  const stream = streamOption(options);
  if (stream !== undefined) checkSameDriver(runtime, stream.runtime, 'the stream', 'the resource');
  return { handle, stream };
}
