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
  /**
   * Reserved memory the pool keeps at a synchronization instead of releasing it. Settable on a
   * pool the resource owns (`isHandleOwned`); a borrowed pool (the driver's current pool, as
   * `new PinnedMemoryResource()` and `new DeviceMemoryResource(device)` take it) is shared by
   * every borrower in the process, so setting it there is refused with a TypeError.
   */
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
      // The one place a pool setting is written: a borrowed pool's settings belong to every
      // borrower at once (the driver keeps one current pool per location), so one borrower
      // must not change what all the others see.
      if (!resource.isHandleOwned) throw borrowedPoolSetting(resource.constructor.name, 'releaseThreshold');
      resource.runtime.driver.memPoolSetAttribute(resource.pool, MemPoolAttribute.ReleaseThreshold, bytes);
    },
  });
}

/** The TypeError for setting `name` through a resource that borrows its pool. */
export function borrowedPoolSetting(kind: string, name: string): TypeError {
  return new TypeError(
    `${name} cannot be set through this ${kind}: it borrows the driver's current pool (isHandleOwned ` +
      `false), which every borrower in the process shares; create the resource with options ` +
      `(e.g. new ${kind}(${kind === 'PinnedMemoryResource' ? '' : '0, '}{ releaseThreshold })) for a pool of its own`,
  );
}
