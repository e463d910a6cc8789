// Copies on raw pointers, ordered on a stream. Without a stream the work goes to the device's
// default stream and the call waits for it; with one, the call only queues the work and any JS
// memory it touches is held until the stream has passed it.
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { runtimeDefaultStream, type Stream } from '../stream/stream.js';

/** Waits for `stream` when the caller gave none, else holds the JS memory `held` until the stream passes it. */
export function finish(
  runtime: DriverRuntime,
  stream: Stream,
  waitForIt: boolean,
  held?: ArrayBufferView,
): void {
  if (waitForIt) runtime.driver.streamSynchronize(stream.streamHandle);
  else if (held !== undefined) stream.holdChecked(held);
}

/** `size` bytes from `src` to `dst` (any unified addresses). */
export function copyPointers(
  runtime: DriverRuntime,
  dst: bigint,
  src: bigint,
  size: number,
  stream: Stream | undefined,
  ordinal: number,
): void {
  if (size === 0) return;
  const target = stream ?? runtimeDefaultStream(runtime, ordinal);
  runtime.makeCurrent(target.ordinal);
  runtime.driver.memcpyAsync(dst, src, size, target.streamHandle);
  finish(runtime, target, stream === undefined);
}
