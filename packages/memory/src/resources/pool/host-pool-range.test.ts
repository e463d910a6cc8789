// Issue 45, bounds: for host pool memory the driver may answer RANGE_START_ADDR with the
// allocation's offset into its pool, not its address. The range found for a pointer into the
// middle of an allocation must end where the allocation ends, never past it (taking the pointer
// as the start let an import reach up to its offset past the end).
import { CudaError, type Driver, PointerAttribute, PointerHandleAttribute } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { hostPoolAllocationRange } from './host-pool-range.js';

// Allocations of a pool as the driver answers for them: RANGE_START_ADDR their offset into the
// pool, RANGE_SIZE their size; addresses outside them are unknown memory.
function poolDriver(base: bigint, sizes: readonly number[]): Driver {
  const allocations: { start: bigint; size: bigint; offset: bigint }[] = [];
  let at = base;
  for (const size of sizes) {
    allocations.push({ start: at, size: BigInt(size), offset: at - base });
    at += BigInt(size);
  }
  const find = (pointer: bigint) => {
    const found = allocations.find(({ start, size }) => start <= pointer && pointer < start + size);
    if (found === undefined)
      throw new CudaError({ code: 1, codeName: 'CUDA_ERROR_INVALID_VALUE', call: 'cuPointerGetAttribute' });
    return found;
  };
  return {
    pointerGetHandleAttribute: (pointer: bigint, attribute: number) => {
      expect(attribute).toBe(PointerHandleAttribute.RangeStartAddress);
      return find(pointer).offset;
    },
    pointerGetAttribute: (pointer: bigint, attribute: number) => {
      expect(attribute).toBe(PointerAttribute.RangeSize);
      return Number(find(pointer).size);
    },
  } as unknown as Driver;
}

describe('hostPoolAllocationRange', () => {
  const base = 0x7f00_0000_0000n;
  const sizes = [4096, 65536, 4096, 262144, 4096];
  const driver = poolDriver(base, sizes);
  const starts = sizes.map((_, index) => base + BigInt(sizes.slice(0, index).reduce((a, b) => a + b, 0)));

  it('finds the exact range from any pointer into an allocation', () => {
    sizes.forEach((size, index) => {
      const start = starts[index] as bigint;
      for (const offset of [0, 1, 4095, size - 1]) {
        if (offset >= size) continue;
        const pointer = start + BigInt(offset);
        const answer = driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.RangeStartAddress);
        expect(hostPoolAllocationRange(driver, pointer, answer, BigInt(size))).toEqual({
          start,
          end: start + BigInt(size),
        });
      }
    });
  });

  it('with neighbours answering alike, ends no later than the allocation', () => {
    // A driver answering 0 for every allocation, all of one size: the start found may be a
    // neighbour's, so the end comes earlier, never later.
    const same = {
      pointerGetHandleAttribute: () => 0n,
      pointerGetAttribute: () => 4096,
    } as unknown as Driver;
    const pointer = base + 3n * 4096n + 100n;
    const { end } = hostPoolAllocationRange(same, pointer, 0n, 4096n);
    expect(end <= base + 4n * 4096n).toBe(true);
    expect(end > pointer).toBe(true);
  });
});
