import { CudaStateError, type DriverHandle, describeValue } from '@cumem/core-types';
import { Stream } from './stream.js';

/** The `{ stream }` options most calls take. */
export interface StreamOrderOptions {
  /**
   * The stream to order the work on; the call then returns as soon as the work is queued.
   * Omitted: the device's default stream, and the call returns after the work is done.
   */
  readonly stream?: Stream;
}

/**
 * The `stream` of an options argument, or undefined when none was given. Checks kind and state
 * only, allocating nothing (this runs on every allocate and close).
 * @throws TypeError when options is not an object or stream not a Stream; CudaStateError when the stream is closed.
 */
export function streamOption(options: StreamOrderOptions | undefined): Stream | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw badOptions(options);
  const stream = options.stream;
  if (stream === undefined) return undefined;
  if (!Stream.isOpenStream(stream)) throw badStream(stream);
  return stream;
}

/** What work on a stream is queued with: its device and its `CUstream` (the stream's own fields). */
export interface OpenStreamFacts {
  readonly ordinal: number;
  readonly streamHandle: DriverHandle;
}

/**
 * `stream` when it is an open Stream of @cumem/memory, typed as the facts work is
 * queued with, for the packages above (compute's launch): the stream's own fields, read without
 * its public getters' brand checks and allocating nothing.
 * @throws TypeError for anything but a Stream; CudaStateError when it is closed.
 */
export function openStreamFacts(stream: unknown): OpenStreamFacts {
  if (!Stream.isOpenStream(stream)) throw badStream(stream);
  return stream;
}

// The errors are built out of line: this function runs in every allocate and close, and stays
// small without the error messages' template literals.
function badOptions(options: unknown): TypeError {
  return new TypeError(`options must be an object or undefined, got ${describeValue(options)}`);
}

function badStream(stream: unknown): Error {
  if (!Stream.isStream(stream)) return new TypeError(`stream must be a Stream, got ${describeValue(stream)}`);
  return CudaStateError.closed('Stream');
}
