// The pointers a memory resource handed to Buffers that are still open, so that a pointer has
// one owner: `mr.deallocate` of a live buffer's pointer would free it under the buffer (and a
// pool could be destroyed under it), and a second `Buffer.fromHandle(p, n, { mr })` would free
// it twice. Hot path (allocate / close): one Map set or delete keyed by the address as a
// number (user-space addresses are below 2^53), no object per buffer.
import { CudaStateError } from '@cumem/core-types';

/** Live pointers of one resource, with their sizes. */
export class LiveAllocations {
  private readonly sizes = new Map<number, number>();

  /** How many buffers own memory of the resource now. */
  get count(): number {
    return this.sizes.size;
  }

  /** Records memory just handed to a buffer. Hot path. */
  add(pointer: bigint, size: number): void {
    this.sizes.set(Number(pointer), size);
  }

  /** Forgets a freed pointer; false when it was not live. Hot path. */
  delete(pointer: bigint): boolean {
    return this.sizes.delete(Number(pointer));
  }

  /** True when a live buffer owns `pointer`. */
  has(pointer: bigint): boolean {
    return this.sizes.has(Number(pointer));
  }

  /**
   * Refuses `mr.deallocate(pointer)` while a buffer owns the pointer.
   * @throws CudaStateError naming the buffer.
   */
  checkNotOwned(pointer: bigint, resource: string): void {
    const size = this.sizes.get(Number(pointer));
    if (size === undefined) return;
    throw new CudaStateError(
      `${resource}.deallocate: ${describeOwner(pointer, size)} still owns 0x${pointer.toString(16)}; ` +
        'close the Buffer instead (freeing it here would free it twice)',
    );
  }

  /**
   * Records memory `Buffer.fromHandle(pointer, size, { mr })` hands to the resource.
   * @throws CudaStateError when a live buffer of the resource owns the pointer already.
   */
  adopt(pointer: bigint, size: number, resource: string): void {
    const owned = this.sizes.get(Number(pointer));
    if (owned !== undefined) {
      throw new CudaStateError(
        `Buffer.fromHandle: ${describeOwner(pointer, owned)} of this ${resource} already owns ` +
          `0x${pointer.toString(16)}; a second owner would free it twice (use slice() or { owner })`,
      );
    }
    this.add(pointer, size);
  }
}

function describeOwner(pointer: bigint, size: number): string {
  return `the open Buffer(0x${pointer.toString(16)}, ${size} bytes)`;
}
