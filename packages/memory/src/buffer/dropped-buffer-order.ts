// The stream a buffer dropped without close() is freed on, ordered after the work queued so far
// on every stream cumem knows (why: known-streams.ts).

import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { knownStreamsOf } from '../stream/known-streams.js';
import { runtimeDefaultStream, Stream } from '../stream/stream.js';
import type { MemoryResource } from './memory-resource.js';

/**
 * The stream the buffer was allocated on, or (when it had none, or it has been closed since) the
 * default stream of the resource's device, made to wait for every other known stream.
 */
export function orderForDroppedBuffer(
  runtime: DriverRuntime,
  resource: MemoryResource,
  allocationStream: Stream | undefined,
): Stream {
  const target =
    allocationStream !== undefined && Stream.isOpenStream(allocationStream)
      ? allocationStream
      : runtimeDefaultStream(runtime, resource.deviceId >= 0 ? resource.deviceId : runtime.currentDevice);
  knownStreamsOf(runtime).orderAfterAll(target.streamHandle, target.ordinal);
  return target;
}
