// The per-device current resource (RMM's set_per_device_resource): libraries built on cumem
// allocate from `currentResource(device)` and so share the application's pool (and its
// statistics, limit and hooks) instead of each making their own. Kept per driver, as a
// resource belongs to the driver it was made with.
import { CudaStateError, type Device, describeValue } from '@cumem/core-types';
import { MemoryResource } from '../buffer/memory-resource.js';
import { deviceOrdinal } from '../runtime/device-arguments.js';
import { activeRuntime } from '../runtime/driver-runtime.js';
import { perRuntimeState } from '../runtime/per-runtime-state.js';
import { DeviceMemoryResource } from './device-memory-resource.js';

/**
 * The resource libraries should allocate device memory from on `device`: the one set by
 * {@link setCurrentResource}, else a `DeviceMemoryResource(device)` over the device's current
 * pool (made once, kept).
 * @throws TypeError / RangeError for a bad device.
 */
export function currentResource(device: Device | number): MemoryResource {
  const runtime = activeRuntime();
  const ordinal = deviceOrdinal(runtime, device);
  const resources = resourcesOf(runtime);
  let resource = resources.get(ordinal);
  if (resource === undefined || resource.isClosed) {
    resource = new DeviceMemoryResource(ordinal);
    resources.set(ordinal, resource);
  }
  return resource;
}

/**
 * Makes `mr` the current resource of `device` (for the driver in use); `null` goes back to
 * the default. A resource of another device is refused; host resources (deviceId -1) are
 * accepted, for libraries that want host-accessible memory.
 * @returns the resource that was current before, or null when none was set.
 * @throws TypeError for an `mr` that is not a MemoryResource; RangeError for a bad device or
 *   a resource of another device; CudaStateError for a closed resource.
 */
export function setCurrentResource(
  device: Device | number,
  mr: MemoryResource | null,
): MemoryResource | null {
  const runtime = activeRuntime();
  const ordinal = deviceOrdinal(runtime, device);
  if (mr !== null && !(mr instanceof MemoryResource)) {
    throw new TypeError(`mr must be a MemoryResource or null, got ${describeValue(mr)}`);
  }
  if (mr !== null) {
    if (mr.isClosed) throw CudaStateError.closed(mr.constructor.name);
    if (mr.deviceId >= 0 && mr.deviceId !== ordinal) {
      throw new RangeError(`this ${mr.constructor.name} is on device ${mr.deviceId}, not device ${ordinal}`);
    }
  }
  const resources = resourcesOf(runtime);
  const previous = resources.get(ordinal) ?? null;
  if (mr === null) resources.delete(ordinal);
  else resources.set(ordinal, mr);
  return previous;
}

/** @internal The current resources set or made so far for the driver in use. */
export function currentResources(): Map<number, MemoryResource> {
  return resourcesOf(activeRuntime());
}

/** The resource `setCurrentResource` chose (or the default made) per device, per runtime. */
const resourcesOf = perRuntimeState(() => new Map<number, MemoryResource>());
