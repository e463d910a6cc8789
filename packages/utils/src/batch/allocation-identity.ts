// Which driver allocation a Buffer lies in, from public Buffer members only.
//
// A driver range may not span two allocations: the driver refuses a prefetch or discard of a
// range made of two separate cuMemAllocManaged allocations that happen to be adjacent in address
// (CUDA_ERROR_INVALID_VALUE). So coalescing needs to know that two touching buffers share one
// allocation, and address arithmetic cannot tell.
import { type Buffer, bufferBrand } from '@cumem/memory';
import { bufferState } from '@cumem/memory/internal';

/**
 * The outermost Buffer known to contain `buffer`'s memory: follows `owner` while the owner is a
 * Buffer whose range contains this one (a `slice()`, or `Buffer.fromHandle` with a containing
 * Buffer as `owner`). A Buffer from a memory resource, or from `Buffer.fromHandle` without such
 * an owner, is its own allocation: two of them never coalesce, even when their addresses touch.
 */
export function allocationOf(buffer: Buffer): Buffer {
  let inner = buffer;
  for (;;) {
    const owner: unknown = bufferState(inner).owner;
    if (!bufferBrand.has(owner) || !contains(owner as Buffer, inner)) return inner;
    inner = owner as Buffer;
  }
}

/** True when `a` and `b` lie in one allocation by the rule of {@link allocationOf}. */
export function sameAllocation(a: Buffer, b: Buffer): boolean {
  return a === b || allocationOf(a) === allocationOf(b);
}

function contains(outer: Buffer, inner: Buffer): boolean {
  const start = bufferState(outer).pointer;
  const address = bufferState(inner).pointer;
  return (
    address >= start && address + BigInt(bufferState(inner).size) <= start + BigInt(bufferState(outer).size)
  );
}
