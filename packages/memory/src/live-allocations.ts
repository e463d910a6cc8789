// The pointers a memory resource handed to Buffers that are still open, so that a pointer has
// one owner: `mr.deallocate` of a live buffer's pointer would free it under the buffer (and a
// pool could be destroyed under it), and a second `Buffer.fromHandle(p, n, { mr })` would free
// it twice. Hot path (allocate / close): one Set add or delete of the address as a number
// (user-space addresses are below 2^53), no object per buffer. A Set, not a Map with sizes:
// set + delete measured about a third cheaper (Node 20), and the address names the buffer.
// Statistics, limits and tracking (resource-accounting.ts) hang off the same two calls, so every
// built-in resource gets them; while they are off they cost one null check.
import { CudaStateError } from '@cumem/core-types';
import {
  addToCensus,
  type CensusEntry,
  ResourceAccounting,
  type TrackedResource,
} from './resource-accounting.js';

// `Number(bigint)` measured ~100 ns per conversion in a Set add + delete loop (Node 20, V8 11.3);
// reading the bigint's two 32-bit halves through a BigUint64Array measured half of that loop's
// time. Addresses are below 2^53, so the key is exact either way.
const slot = new BigUint64Array(1);
const halves = new Uint32Array(slot.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const low = littleEndian ? 0 : 1;
const high = 1 - low;

/** `pointer` as a number key (exact below 2^53; larger values never come from the driver). */
function key(pointer: bigint): number {
  slot[0] = pointer;
  return halves[high]! * 4294967296 + halves[low]!;
}

/** Live pointers of one resource. */
export class LiveAllocations implements CensusEntry {
  private readonly pointers = new Set<number>();
  /** Statistics, limit and trackers; null while all are off. */
  accounting: ResourceAccounting | null = null;

  constructor(readonly resource: TrackedResource) {
    this.accounting = addToCensus(this);
  }

  /** How many buffers own memory of the resource now. */
  get count(): number {
    return this.pointers.size;
  }

  /** Records `size` bytes just handed to a buffer. Hot path. */
  add(pointer: bigint, size: number): void {
    const number = key(pointer);
    this.pointers.add(number);
    if (this.accounting !== null) this.accounting.allocated(pointer, size);
  }

  /** Forgets a freed pointer of `size` bytes; false when it was not live. Hot path. */
  delete(pointer: bigint, size: number): boolean {
    const number = key(pointer);
    if (!this.pointers.delete(number)) return false;
    if (this.accounting !== null) this.accounting.released(number, size);
    return true;
  }

  /** Records that the live allocation at `pointer` now holds `to` bytes instead of `from`. */
  resize(pointer: bigint, from: number, to: number): void {
    if (this.accounting !== null) this.accounting.resized(key(pointer), from, to);
  }

  /** True when a live buffer owns `pointer`. */
  has(pointer: bigint): boolean {
    return this.pointers.has(key(pointer));
  }

  /** The accounting, made on first use; allocations live before it are never counted. */
  account(): ResourceAccounting {
    if (this.accounting === null) {
      this.accounting = new ResourceAccounting(this.resource);
      this.accounting.ignore(this.pointers);
    }
    return this.accounting;
  }

  /**
   * Refuses `mr.deallocate(pointer)` while a buffer owns the pointer.
   * @throws CudaStateError naming the buffer.
   */
  checkNotOwned(pointer: bigint, resource: string): void {
    if (!this.pointers.has(key(pointer))) return;
    throw new CudaStateError(
      `${resource}.deallocate: an open Buffer(0x${pointer.toString(16)}) of this resource still owns ` +
        'the memory; close the Buffer instead (freeing it here would free it twice)',
    );
  }

  /**
   * Records memory `Buffer.fromHandle(pointer, size, { mr })` hands to the resource. Not an
   * allocation of the resource: statistics leave it out.
   * @throws CudaStateError when a live buffer of the resource owns the pointer already.
   */
  adopt(pointer: bigint, resource: string): void {
    const number = key(pointer);
    if (this.pointers.has(number)) {
      throw new CudaStateError(
        `Buffer.fromHandle: an open Buffer(0x${pointer.toString(16)}) of this ${resource} already owns ` +
          'the memory; a second owner would free it twice (use slice() or { owner })',
      );
    }
    this.pointers.add(number);
    this.accounting?.ignore([number]);
  }
}
