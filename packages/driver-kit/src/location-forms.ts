// How a MemLocation reaches the driver, the same in both adapters (the N-API addon spells these
// rules in native/location-support.h and binding-managed.cc).
import { CU_DEVICE_CPU, CU_DEVICE_INVALID, type MemLocation, MemLocationType } from '@cumem/core-types';

/**
 * The `id` cumem passes in a `CUmemLocation`: 0 for a Host location, whose id cuda.h documents as
 * ignored (so the 'legacy' emulation of the CUDA 8.0 forms, which cannot name a host id, passes
 * what those forms mean: the host), else `location.id` (an ordinal or NUMA node) as given.
 */
export function driverLocationId(location: MemLocation): number {
  return location.type === MemLocationType.Host ? 0 : location.id;
}

/**
 * The `CUdevice` argument of the CUDA 8.0 forms of cuMemAdvise / cuMemPrefetchAsync: for a Device
 * location the handle `cuDeviceGet` gives for its ordinal (`deviceOf`, which the adapter caches:
 * a CUdevice is a handle, not an ordinal, though the two coincide on NVIDIA's drivers so far),
 * `CU_DEVICE_CPU` for the host, `CU_DEVICE_INVALID` for no location.
 */
export function legacyDeviceArgument(location: MemLocation, deviceOf: (ordinal: number) => number): number {
  if (location.type === MemLocationType.Device) return deviceOf(location.id);
  if (location.type === MemLocationType.Host) return CU_DEVICE_CPU;
  return CU_DEVICE_INVALID;
}
