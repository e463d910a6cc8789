import { type MemLocation, MemLocationType } from '@cumem/core-types';
import { referenceHostNumaId } from './device-table.js';

/**
 * Whether a pool (`cuMemPoolCreate`) or a location's default pool (`cuMemGetMemPool`) can be at
 * `location`: a device of the table, the host, the host's one NUMA node, or, for managed pools
 * only, no preferred location (`Invalid`, as cuda.h says). Anything else, `HostNumaCurrent`
 * included, is the driver's `CUDA_ERROR_INVALID_VALUE`.
 */
export function isPoolLocation(location: MemLocation, managed: boolean, deviceCount: number): boolean {
  const { type, id } = location;
  switch (type) {
    case MemLocationType.Device:
      return Number.isInteger(id) && id >= 0 && id < deviceCount;
    case MemLocationType.Host:
      return true;
    case MemLocationType.HostNuma:
      return id === referenceHostNumaId;
    case MemLocationType.Invalid:
      return managed;
    default:
      return false;
  }
}
