import type { MemLocation } from './driver-constants.js';
import type { DriverHandle } from './driver-types.js';

/**
 * The CUDA 13.0 queries that name a location's memory pool without creating one (the pool of a
 * Host location: the driver's host pool, which cumem does not own). Part of {@link Driver}.
 */
export interface DriverPoolQueries {
  /**
   * `cuMemGetMemPool(&pool, &location, type)`: the current pool of `location` for
   * `allocationType` (`MemAllocationType.Pinned` or `.Managed`); the default pool until
   * `cuMemSetMemPool` changes it. Requires `capabilities.memoryPoolQueries`.
   */
  memGetMemPool(location: MemLocation, allocationType: number): DriverHandle;
  /**
   * `cuMemGetDefaultMemPool(&pool, &location, type)`: the driver's default pool of `location`
   * for `allocationType`. Requires `capabilities.memoryPoolQueries`.
   */
  memGetDefaultMemPool(location: MemLocation, allocationType: number): DriverHandle;
}
