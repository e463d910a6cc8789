// Reaching the driver for work on a Stream of @cumem/memory: check the stream is usable, then
// make its device's context current (driver calls use the thread's current context).
import { CudaStateError, type Driver, describeValue } from '@cumem/core-types';
import type { Stream } from '@cumem/memory';
import { bindStreamDriver } from '@cumem/memory/internal';

/**
 * Checks that `stream` is an open Stream, without any driver call.
 * @throws TypeError for anything but a Stream; CudaStateError for a closed one.
 */
export function checkStream(stream: unknown, name = 'stream'): Stream {
  if (typeof stream !== 'object' || stream === null || !('handle' in stream) || !('device' in stream)) {
    throw new TypeError(`${name} must be a Stream of @cumem/memory, got ${describeValue(stream)}`);
  }
  if ((stream as Stream).isClosed) throw CudaStateError.closed('Stream');
  return stream as Stream;
}

/**
 * The driver for work on `stream` (the stream's own, not the current one), with the stream's
 * device context made current: one comparison when it already is.
 */
export function driverFor(stream: Stream): Driver {
  return bindStreamDriver(stream);
}
