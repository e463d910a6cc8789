// How a MemLocation reaches the driver, the same in both adapters (the N-API addon spells the rule
// in native/location-support.h). The CUDA 8.0 forms take a CUdevice instead: the handle
// cuDeviceGet gives for the ordinal, CU_DEVICE_CPU for the host (both adapters' legacyDevice).
import { type MemLocation, MemLocationType } from '@cumem/core-types';

/**
 * The `id` cumem passes in a `CUmemLocation`: 0 for a Host location, whose id cuda.h documents as
 * ignored (so the 'legacy' emulation of the CUDA 8.0 forms, which cannot name a host id, passes
 * what those forms mean: the host), else `location.id` (an ordinal or NUMA node) as given.
 */
export function driverLocationId(location: MemLocation): number {
  return location.type === MemLocationType.Host ? 0 : location.id;
}
