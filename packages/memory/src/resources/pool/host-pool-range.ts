// The allocation that holds a pointer into host (pinned) pool memory, for the range lookup of
// buffer/pointer-range.ts. Some drivers answer CU_POINTER_ATTRIBUTE_RANGE_START_ADDR for such
// memory with 0 or the allocation's offset into its pool, never its address, while RANGE_SIZE
// is the allocation's size. Taking the pointer itself as the start is exact at an allocation's
// start but lets a pointer into the middle of one claim up to its offset past the end. Every
// address of one allocation gets the same answer, so the lowest address with that answer, no
// more than a size below the pointer, is found by bisection; a neighbour that answers alike can
// only make the start found lower, and so the end earlier: never past the allocation's end.
import { CudaError, type Driver, PointerAttribute, PointerHandleAttribute } from '@cumem/core-types';

/**
 * `[start, end)` of the host pool allocation holding `pointer`, given the driver's answers at
 * `pointer` (`answeredStart`, `size`): exact, or (if a neighbour answers alike) a range ending
 * earlier than the allocation's; never one ending later.
 */
export function hostPoolAllocationRange(
  driver: Driver,
  pointer: bigint,
  answeredStart: bigint,
  size: bigint,
): { start: bigint; end: bigint } {
  const sameAllocation = (address: bigint): boolean => {
    try {
      return (
        driver.pointerGetHandleAttribute(address, PointerHandleAttribute.RangeStartAddress) ===
          answeredStart && BigInt(driver.pointerGetAttribute(address, PointerAttribute.RangeSize)) === size
      );
    } catch (error) {
      // Memory the driver does not know (or another kind of memory) is not this allocation.
      if (CudaError.isInstance(error)) return false;
      throw error;
    }
  };
  // The start lies in (pointer - size, pointer]; `high` always answers alike, `low` never (or is
  // below every candidate).
  let low = pointer - size;
  let high = pointer;
  while (high - low > 1n) {
    const middle = low + (high - low) / 2n;
    if (middle > 0n && sameAllocation(middle)) high = middle;
    else low = middle;
  }
  return { start: high, end: high + size };
}
