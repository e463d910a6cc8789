// Checks of a claimed size against the allocation the driver knows (CU_POINTER_ATTRIBUTE_RANGE_*).
import {
  CudaError,
  checkAddress,
  checkSize,
  type Driver,
  describeValue,
  PointerAttribute,
  PointerHandleAttribute,
} from '@cumem/core-types';
import { hostPoolAllocationRange } from '../resources/pool/host-pool-range.js';
import { liveVirtualRange } from '../resources/virtual/virtual-ranges.js';

/**
 * The allocation that holds `pointer` (`[start, end)`), from the driver's range attributes;
 * undefined for memory the driver never saw (pageable host memory answers
 * CUDA_ERROR_INVALID_VALUE), whose size nothing can check. The one reading of those attributes:
 * here, and for @cumem/utils' CUDA Array Interface imports.
 */
export function allocationRange(driver: Driver, pointer: bigint): { start: bigint; end: bigint } | undefined {
  // A VirtualMemoryResource's buffer as it is now (the driver's range attributes describe the
  // chunks mapped, not the buffer, which may have shrunk since).
  const live = liveVirtualRange(driver, pointer);
  if (live !== undefined) return live;
  let start: bigint;
  try {
    start = driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.RangeStartAddress);
  } catch (error) {
    if (CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_INVALID_VALUE') return undefined;
    throw error;
  }
  const size = BigInt(driver.pointerGetAttribute(pointer, PointerAttribute.RangeSize));
  // The CUDA 13.0 driver answers RANGE_START_ADDR 0 (or the allocation's offset into the pool:
  // 0x1000, 0x2000, ...) for memory of a host (pinned) pool, with
  // RANGE_SIZE the allocation's size. For a start that does not hold the pointer, the start is
  // found by bisection (resources/pool/host-pool-range.ts).
  if (start > pointer || start + size <= pointer)
    return hostPoolAllocationRange(driver, pointer, start, size);
  return { start, end: start + size };
}

/** The address just past the allocation that holds `pointer` ({@link allocationRange}). */
export function allocationEnd(driver: Driver, pointer: bigint): bigint | undefined {
  return allocationRange(driver, pointer)?.end;
}

/**
 * A RangeError when `size` bytes from `pointer` run past the end of the allocation holding it;
 * undefined when they fit or the driver does not know the memory (pageable host memory, whose
 * size nothing can check). The end comes from `CU_POINTER_ATTRIBUTE_RANGE_START_ADDR` and
 * `RANGE_SIZE`. `Buffer.fromHandle`, `Buffer.fromIpcDescriptor` and @cumem/interop-arrow's
 * `Context.openIpcBuffer` check sizes claimed from outside with it, so they refuse alike, with
 * one message: `<what> claims <size> bytes at 0x…, but the allocation there ends <n> bytes from it`.
 * @param what - names the claimant in the message (e.g. `'Buffer.fromHandle'`).
 * @throws TypeError for a `driver` without the pointer queries, a bad `pointer` or `size`, or a
 *   non-string `what`; CudaError when the driver fails to answer for another reason than
 *   unknown memory.
 */
export function rangeOverrun(
  driver: Driver,
  pointer: bigint,
  size: number,
  what: string,
): RangeError | undefined {
  const queries = driver as Partial<Driver> | null;
  if (
    typeof queries !== 'object' ||
    queries === null ||
    typeof queries.pointerGetHandleAttribute !== 'function' ||
    typeof queries.pointerGetAttribute !== 'function'
  ) {
    throw new TypeError(`driver must be a Driver, got ${describeValue(driver)}`);
  }
  const address = checkAddress(pointer, 'pointer');
  checkSize(size, 'size');
  if (typeof what !== 'string') throw new TypeError(`what must be a string, got ${describeValue(what)}`);
  if (size === 0) return undefined;
  const end = allocationEnd(driver, address);
  if (end === undefined || address + BigInt(size) <= end) return undefined;
  return new RangeError(
    `${what} claims ${size} bytes at 0x${address.toString(16)}, but the allocation there ends ` +
      `${end - address} bytes from it (CU_POINTER_ATTRIBUTE_RANGE_SIZE)`,
  );
}
