// Reusable typed arrays for the pointer / size lists a batch hands to the driver. They grow by
// doubling and are never shrunk, so a steady stream of batches allocates nothing per range.
// Safe to share: every driver call that reads them is synchronous, and JS is single-threaded.
import type { MemLocation } from '@cumem/core-types';

/** Packed ranges: `pointers[i]`, `sizes[i]` (bytes) and the target index `targets[i]` for i < count. */
export class RangeScratch {
  pointers = new BigUint64Array(64);
  sizes = new BigUint64Array(64);
  /** Second pointer list (copy sources). */
  sources = new BigUint64Array(64);
  /** Index into the caller's distinct locations, per range. */
  targets = new Int32Array(64);
  count = 0;
  /** Distinct locations in run order and where each run starts (for the batch entry points). */
  readonly runLocations: MemLocation[] = [];
  readonly runStarts: number[] = [];

  /** Empties the lists and makes room for `capacity` ranges. */
  reset(capacity: number): void {
    this.count = 0;
    this.runLocations.length = 0;
    this.runStarts.length = 0;
    if (capacity <= this.pointers.length) return;
    let size = this.pointers.length;
    while (size < capacity) size *= 2;
    this.pointers = new BigUint64Array(size);
    this.sizes = new BigUint64Array(size);
    this.sources = new BigUint64Array(size);
    this.targets = new Int32Array(size);
  }

  /**
   * Appends a range, or extends the previous one when it ends where this one starts and goes
   * to the same target (coalescing: one driver range instead of two).
   */
  push(pointer: bigint, size: number, target: number, coalesce: boolean): void {
    const last = this.count - 1;
    const bigSize = BigInt(size);
    if (
      coalesce &&
      last >= 0 &&
      this.targets[last] === target &&
      this.pointers[last]! + this.sizes[last]! === pointer
    ) {
      this.sizes[last]! += bigSize;
      return;
    }
    this.pointers[this.count] = pointer;
    this.sizes[this.count] = bigSize;
    this.targets[this.count] = target;
    this.count++;
  }

  /** Appends a copy, or extends the previous one when both its source and destination continue. */
  pushCopy(destination: bigint, source: bigint, size: number, coalesce: boolean): void {
    const last = this.count - 1;
    const bigSize = BigInt(size);
    if (
      coalesce &&
      last >= 0 &&
      this.pointers[last]! + this.sizes[last]! === destination &&
      this.sources[last]! + this.sizes[last]! === source
    ) {
      this.sizes[last]! += bigSize;
      return;
    }
    this.pointers[this.count] = destination;
    this.sources[this.count] = source;
    this.sizes[this.count] = bigSize;
    this.count++;
  }

  /** Fills {@link runLocations} / {@link runStarts} for ranges `[from, to)` (starts relative to `from`). */
  buildRuns(from: number, to: number, locations: readonly MemLocation[]): void {
    this.runLocations.length = 0;
    this.runStarts.length = 0;
    let previous = -1;
    for (let i = from; i < to; i++) {
      const target = this.targets[i]!;
      if (target === previous) continue;
      this.runLocations.push(locations[target]!);
      this.runStarts.push(i - from);
      previous = target;
    }
  }
}

/** The one scratch the batch operations share. */
export const sharedScratch = new RangeScratch();
