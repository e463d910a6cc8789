import type { ManagedState } from './managed-state.js';
import type { PoolState } from './pool-state.js';

/** How memory of an allocation can be reached: device only, page-locked host, or managed. */
export type AllocationKind = 'device' | 'host' | 'managed';

/** The entry point family that made an allocation, which decides how it may be freed. */
export type AllocationOrigin = 'memAlloc' | 'memHostAlloc' | 'memAllocManaged' | 'pool' | 'vmm';

/** One live allocation of the reference driver, backed by its own ArrayBuffer. */
export interface Allocation {
  /** First byte's fake unified address. */
  readonly start: bigint;
  /** Requested size in bytes. */
  readonly size: number;
  readonly kind: AllocationKind;
  readonly origin: AllocationOrigin;
  /** The bytes; detached when the allocation is freed so stale views read as empty. */
  readonly bytes: Uint8Array;
  /** Ordinal of the device the allocation belongs to (the current context's device when made). */
  readonly device: number;
  /** Context handle current when it was made. */
  readonly context: bigint;
  /** The pool it came from, for `memAllocFromPoolAsync` allocations. */
  readonly pool: PoolState | undefined;
  /** Advice and prefetch state, for managed allocations. */
  readonly managed: ManagedState | undefined;
}

// Addresses look like x86-64 Linux unified addresses (below 2**47) so code that prints or masks
// them sees plausible values. A gap follows every allocation and nothing is ever reused, so an
// access just past the end or after a free finds no allocation instead of someone else's bytes.
const firstAddress = 0x7f3a_0000_0000n;
const guardGap = 0x10_0000n;

function alignUp(value: bigint, alignment: bigint): bigint {
  return ((value + alignment - 1n) / alignment) * alignment;
}

/**
 * Detaches `buffer` (a transfer to nowhere), so every view over it reads as length 0. An
 * already detached buffer (a view detached before its memory was freed) is left alone: a
 * transfer of it would throw.
 */
export function detach(buffer: ArrayBuffer): void {
  if (buffer.byteLength === 0) return;
  structuredClone(buffer, { transfer: [buffer] });
}

/** The reference driver's allocations, found by any address inside them. */
export class AddressSpace {
  private next = firstAddress;
  // Addresses only grow, so pushing keeps this sorted by start.
  private readonly live: Allocation[] = [];
  // Every allocation's backing store, so detachView can tell them from JS memory.
  private readonly stores = new WeakSet<ArrayBuffer>();

  /** A fresh, never used address range of `size` bytes aligned to `alignment` bytes. */
  reserve(size: number, alignment: number): bigint {
    const start = alignUp(this.next, BigInt(alignment));
    this.next = start + BigInt(size) + guardGap;
    return start;
  }

  add(allocation: Allocation): void {
    // Sorted by start: VMM mappings can land below later allocations (a reserved range fills up).
    let index = this.live.length;
    while (index > 0 && (this.live[index - 1] as Allocation).start > allocation.start) index--;
    this.live.splice(index, 0, allocation);
    this.stores.add(allocation.bytes.buffer as ArrayBuffer);
  }

  remove(allocation: Allocation): void {
    const index = this.indexOf(allocation.start);
    if (index >= 0 && this.live[index] === allocation) this.live.splice(index, 1);
    // Detach the backing store: views handed out by hostView now have length 0.
    detach(allocation.bytes.buffer as ArrayBuffer);
  }

  /** True when `buffer` is the backing store of an allocation (live or freed). */
  owns(buffer: ArrayBuffer): boolean {
    return this.stores.has(buffer);
  }

  /**
   * Reserves `[start, start + size)` exactly when no reservation handed out before reaches into
   * it (cuMemAddressReserve's address hint); false otherwise. Later ranges come after it.
   */
  reserveAt(start: bigint, size: number, taken: (start: bigint, end: bigint) => boolean): boolean {
    const end = start + BigInt(size);
    if (taken(start, end) || this.containing(start) || this.containing(end - 1n)) return false;
    if (end + guardGap > this.next) this.next = end + guardGap;
    return true;
  }

  /** The allocation that starts exactly at `address`. */
  at(address: bigint): Allocation | undefined {
    const index = this.indexOf(address);
    return index >= 0 ? this.live[index] : undefined;
  }

  /** The allocation containing `address`. */
  containing(address: bigint): Allocation | undefined {
    let low = 0;
    let high = this.live.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const allocation = this.live[middle] as Allocation;
      if (address < allocation.start) high = middle - 1;
      else if (address >= allocation.start + BigInt(allocation.size)) low = middle + 1;
      else return allocation;
    }
    return undefined;
  }

  /** Every live allocation, oldest first. */
  all(): readonly Allocation[] {
    return this.live;
  }

  private indexOf(start: bigint): number {
    const allocation = this.containing(start);
    if (!allocation || allocation.start !== start) return -1;
    return this.live.indexOf(allocation);
  }
}
