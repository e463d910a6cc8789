import { type DriverHandle, MemAllocationType, type MemLocation, MemLocationType } from '@cumem/core-types';
import { cudaError } from './cuda-errors.js';
import { isPoolLocation } from './pool-location.js';
import { PoolState } from './pool-state.js';
import { ReferencePeers } from './reference-peers.js';

/**
 * `cuMemGetMemPool` / `cuMemGetDefaultMemPool` (CUDA 13.0). The reference has no
 * `cuMemSetMemPool`, so a location's current pool is its default pool: the device's own for
 * pinned device memory, and one default pool per other location and allocation type, made on
 * first use. Default pools cannot be destroyed (`cuMemPoolDestroy` refuses them, as on a device).
 */
export abstract class ReferencePoolQueries extends ReferencePeers {
  private readonly namedPools = new Map<string, PoolState>();

  memGetMemPool(location: MemLocation, allocationType: number): DriverHandle {
    return this.defaultPoolOf(location, allocationType, 'cuMemGetMemPool');
  }

  memGetDefaultMemPool(location: MemLocation, allocationType: number): DriverHandle {
    return this.defaultPoolOf(location, allocationType, 'cuMemGetDefaultMemPool');
  }

  private defaultPoolOf(location: MemLocation, allocationType: number, call: string): DriverHandle {
    this.state.refuseBatchInLegacyMode(call, 'memoryPoolQueries');
    const invalid = () => cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const managed = allocationType === MemAllocationType.Managed;
    if (!managed && allocationType !== MemAllocationType.Pinned) throw invalid();
    if (typeof location !== 'object' || location === null) throw invalid();
    if (!isPoolLocation(location, managed, this.state.settings.deviceCount)) throw invalid();
    const { type, id } = location;
    if (type === MemLocationType.Device && !managed) return (this.state.defaultPools[id] as PoolState).handle;
    const locationId = type === MemLocationType.HostNuma || type === MemLocationType.Device ? id : 0;
    const key = `${allocationType}:${type}:${locationId}`;
    let pool = this.namedPools.get(key);
    if (pool === undefined) {
      pool = new PoolState(
        this.state.newHandle(),
        { allocationType, locationType: type, locationId, handleTypes: 0, maxSize: 0, device: -1 },
        true,
      );
      this.namedPools.set(key, pool);
      this.state.pools.set(pool.handle, pool);
    }
    return pool.handle;
  }
}
