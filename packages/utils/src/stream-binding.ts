// Reaching the driver for work on a Stream of @cumem/memory: check the stream is usable, then
// make its device's context current (driver calls use the thread's current context).
import { CudaStateError, type Driver, describeValue } from '@cumem/core-types';
import { currentDriver, type Stream } from '@cumem/memory';

// The Stream of @cumem/memory keeps its runtime (primary contexts, current-context cache) on
// the object; binding through it costs one comparison when the context is already current.
interface StreamInternals {
  readonly runtime?: { readonly driver: Driver; makeCurrent(ordinal: number): void };
  readonly ordinal?: number;
}

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

/** The driver for work on `stream`, with the stream's device context made current. */
export function driverFor(stream: Stream): Driver {
  const internals = stream as unknown as StreamInternals;
  const driver = currentDriver();
  // The stream's runtime binds the context through the driver the stream was made with; the
  // calls themselves go to currentDriver() (the same driver, or a wrapper of it in tests).
  internals.runtime?.makeCurrent(internals.ordinal ?? stream.device.ordinal);
  return driver;
}
