// The live attribute view of a pool (`resource.attributes`).
import { CudaStateError, checkSize, MemPoolAttribute } from '@cumem/core-types';
import type { PoolMemoryResource } from './pool-memory-resource.js';

/** Live statistics of a pool, in bytes (`cuMemPoolGetAttribute`). */
export interface PoolAttributes {
  /** Memory the pool holds from the system now. */
  readonly reservedMemCurrent: number;
  /** High-water mark of {@link reservedMemCurrent}. */
  readonly reservedMemHigh: number;
  /** Memory handed out to allocations now. */
  readonly usedMemCurrent: number;
  /** High-water mark of {@link usedMemCurrent}. */
  readonly usedMemHigh: number;
  /** Reserved memory the pool keeps at a synchronization instead of releasing it; settable. */
  releaseThreshold: number;
}

/** @internal */
export function poolAttributes(resource: PoolMemoryResource): PoolAttributes {
  const read = (attribute: number) => {
    if (resource.isClosed) throw CudaStateError.closed(resource.constructor.name);
    return resource.runtime.driver.memPoolGetAttribute(resource.pool, attribute);
  };
  return Object.freeze({
    get reservedMemCurrent() {
      return read(MemPoolAttribute.ReservedMemCurrent);
    },
    get reservedMemHigh() {
      return read(MemPoolAttribute.ReservedMemHigh);
    },
    get usedMemCurrent() {
      return read(MemPoolAttribute.UsedMemCurrent);
    },
    get usedMemHigh() {
      return read(MemPoolAttribute.UsedMemHigh);
    },
    get releaseThreshold() {
      return read(MemPoolAttribute.ReleaseThreshold);
    },
    set releaseThreshold(bytes: number) {
      checkSize(bytes, 'releaseThreshold');
      if (resource.isClosed) throw CudaStateError.closed(resource.constructor.name);
      resource.runtime.driver.memPoolSetAttribute(resource.pool, MemPoolAttribute.ReleaseThreshold, bytes);
    },
  });
}
