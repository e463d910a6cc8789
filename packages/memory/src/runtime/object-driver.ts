import { type Driver, describeValue } from '@cumem/core-types';
import { type BufferBase, bufferBrand, bufferState } from '../buffer/buffer-base.js';
import { releaseDetachedRegistrations } from '../copy/host-registration-table.js';
import { Event } from '../stream/event.js';
import { Stream } from '../stream/stream.js';

/**
 * The driver a Stream, Event or Buffer belongs to: the one it was made with, whichever driver
 * is current now ({@link useDriver} may have changed since). Libraries built on cumem (such as
 * `@cumem/utils`) call it so that work on an object goes to that object's driver. No driver call,
 * except that for a Stream it first unregisters the host registrations whose ArrayBuffer was
 * detached (`registerHostMemory`), as every copy of JS memory in cumem does.
 * @throws TypeError for anything else.
 */
export function driverOf(object: Stream | Event | BufferBase): Driver {
  // Buffers first: batch operations ask once per buffer, thousands per call.
  if (bufferBrand.has(object)) return bufferState(object).runtime.driver;
  if (Event.isEvent(object)) return object.runtime.driver;
  if (Stream.isStream(object)) {
    // Libraries ask for a stream's driver before queuing work on it, JS memory copies included:
    // no registration of a detached ArrayBuffer may outlive that (host-registration-table.ts).
    releaseDetachedRegistrations();
    return object.runtime.driver;
  }
  throw new TypeError(
    `driverOf needs a Stream, Event or Buffer of @cumem/memory, got ${describeValue(object)}`,
  );
}

/**
 * The driver `stream` belongs to, with the stream's device context made current on it (one
 * comparison when it already is): what to call for work ordered on the stream.
 * @throws TypeError for anything but a Stream.
 */
export function bindStreamDriver(stream: Stream): Driver {
  if (!Stream.isStream(stream))
    throw new TypeError(`bindStreamDriver needs a Stream of @cumem/memory, got ${describeValue(stream)}`);
  stream.runtime.makeCurrent(stream.ordinal);
  return stream.runtime.driver;
}
