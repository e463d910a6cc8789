// The ranges of one batch operation after coalescing, kept so that a steady stream of batches
// allocates nothing per range: the typed arrays the batch entry points read, numeric sizes, and
// for the per-range form plain arrays of bigint addresses, filled only when that form is chosen.
// They grow by doubling and are never shrunk. Safe to share within one operation (takeScratch):
// every driver call that reads them is synchronous, and JS is single-threaded.
//
// Addresses are read, and sizes written, as two 32-bit halves of the 64-bit lists: converting
// between BigInt and Number for every range is a visible part of a batch call's own cost (bench/
// README.md, "The JS around a batch call").
import { endianness } from 'node:os';
import type { MemLocation } from '@cumem/core-types';
import type { Buffer } from '@cumem/memory';
import { bufferState } from '@cumem/memory/internal';
import { allocationOf } from './allocation-identity.js';

const low = endianness() === 'LE' ? 0 : 1;
const high = 1 - low;
const twoTo32 = 2 ** 32;

/** Writes `size` (a safe integer) at `index` of the 64-bit array whose 32-bit view is `halves`. */
export function writeSize(halves: Uint32Array, index: number, size: number): void {
  halves[2 * index + low] = size % twoTo32;
  halves[2 * index + high] = Math.floor(size / twoTo32);
}

/** The value at `index` of the 64-bit array whose 32-bit view is `halves`, as a Number (exact below 2**53). */
export function addressAt(halves: Uint32Array, index: number): number {
  return halves[2 * index + low]! + halves[2 * index + high]! * twoTo32;
}

/** One list of 64-bit values the driver reads, with a 32-bit view of the same bytes. */
export class Packed {
  values: BigUint64Array;
  halves: Uint32Array;
  constructor(length: number) {
    this.values = new BigUint64Array(length);
    this.halves = new Uint32Array(this.values.buffer);
  }
}

/**
 * Ranges after coalescing, for i < count: `packedPointers[i]` (destination for copies),
 * `packedSources[i]` (copies only), `sizes[i]` bytes and the target index `targets[i]`.
 * Managed operations {@link push} their ranges (pointers packed as pushed; {@link packSizes}
 * fills `packedSizes` for the batch entry points, {@link unpackPointers} `pointers` for the
 * per-range calls). Copies are packed by copy-batch.ts into {@link copyDestinations},
 * {@link copySources} and {@link copySizes};
 * {@link unpackCopies} fills `pointers`, `sources` and `sizes` for the per-range calls.
 */
export class RangeScratch {
  /** Filled by {@link unpackPointers} / {@link unpackCopies}. */
  readonly pointers: bigint[] = [];
  /** Filled by {@link unpackCopies}. */
  readonly sources: bigint[] = [];
  readonly sizes: number[] = [];
  /** Index into the caller's distinct locations, per range. */
  targets = new Int32Array(64);
  count = 0;
  private destinationList = new Packed(64);
  private sourceList = new Packed(64);
  private sizeList = new Packed(64);
  /** Distinct locations in run order and where each run starts (for the batch entry points). */
  readonly runLocations: MemLocation[] = [];
  readonly runStarts: number[] = [];
  // Coalescing state of push(): where the last range ends (as a Number, read from the halves),
  // and the buffer that ends it, to ask whether a touching buffer shares its allocation (asked
  // only when one touches).
  private lastEnd = -1;
  private lastBuffer: Buffer | undefined;
  private lastAllocation: Buffer | undefined;

  get packedPointers(): BigUint64Array {
    return this.destinationList.values;
  }
  get packedSources(): BigUint64Array {
    return this.sourceList.values;
  }
  get packedSizes(): BigUint64Array {
    return this.sizeList.values;
  }

  /** Empties the lists and makes room for `capacity` ranges. */
  reset(capacity: number): void {
    this.count = 0;
    this.lastEnd = -1;
    this.lastBuffer = undefined;
    this.lastAllocation = undefined;
    if (capacity <= this.targets.length) return;
    let size = this.targets.length;
    while (size < capacity) size *= 2;
    this.targets = new Int32Array(size);
    this.destinationList = new Packed(size);
    this.sourceList = new Packed(size);
    this.sizeList = new Packed(size);
  }

  /**
   * Appends `buffer` (its first `size` bytes) for `target`, or extends the previous range when
   * `coalesce` is set, this buffer starts where that range ends, goes to the same target and
   * lies in the same allocation (a driver range may not span allocations).
   */
  push(buffer: Buffer, size: number, target: number, coalesce: boolean): void {
    const index = this.count;
    const destinations = this.destinationList;
    destinations.values[index] = bufferState(buffer).pointer;
    const address = addressAt(destinations.halves, index);
    if (
      coalesce &&
      address === this.lastEnd &&
      address <= Number.MAX_SAFE_INTEGER &&
      this.targets[index - 1] === target &&
      this.allocationOfLast() === allocationOf(buffer)
    ) {
      this.sizes[index - 1]! += size;
    } else {
      this.sizes[index] = size;
      this.targets[index] = target;
      this.count = index + 1;
      this.lastAllocation = undefined;
    }
    this.lastEnd = address + size;
    this.lastBuffer = buffer;
  }

  // The allocation of the last range, found once per range: every buffer merged into a range
  // shares it.
  private allocationOfLast(): Buffer {
    this.lastAllocation ??= allocationOf(this.lastBuffer!);
    return this.lastAllocation;
  }

  /** Fills {@link pointers} from the packed addresses, for the per-range calls. */
  unpackPointers(): void {
    const { pointers, count } = this;
    const packed = this.destinationList.values;
    for (let i = 0; i < count; i++) pointers[i] = packed[i]!;
  }

  /**
   * For the per-range form of copies (which copy-batch.ts packs straight into the lists): fills
   * {@link pointers}, {@link sources} and {@link sizes} from the packed lists.
   */
  unpackCopies(): void {
    const { pointers, sources, sizes, count } = this;
    const packed = this.destinationList.values;
    const packedSources = this.sourceList.values;
    const sizeHalves = this.sizeList.halves;
    for (let i = 0; i < count; i++) {
      pointers[i] = packed[i]!;
      sources[i] = packedSources[i]!;
      sizes[i] = addressAt(sizeHalves, i);
    }
  }

  /**
   * The lists a copy packs into (addresses of both ends, sizes), for copy-batch.ts, which checks
   * and packs each pair in one loop. Valid until the next {@link reset}.
   */
  get copyDestinations(): Packed {
    return this.destinationList;
  }
  get copySources(): Packed {
    return this.sourceList;
  }
  get copySizes(): Packed {
    return this.sizeList;
  }

  /** Fills {@link packedSizes} from {@link sizes} (pointers are packed as they are pushed by {@link push}). */
  packSizes(): void {
    const { sizes } = this;
    const halves = this.sizeList.halves;
    for (let i = 0; i < this.count; i++) writeSize(halves, i, sizes[i]!);
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

const sharedScratch = new RangeScratch();
let sharedInUse = false;

/**
 * The scratch the batch operations share, or a fresh one while the shared one is in use: copyBatch
 * fills it as it checks, and a getter those checks run (a `fromHandle` owner's `isClosed`, an
 * array element's getter) may call a batch operation, which must not overwrite the outer call's
 * ranges. Hand it back with {@link releaseScratch} (in a `finally`).
 */
export function takeScratch(): RangeScratch {
  if (sharedInUse) return new RangeScratch();
  sharedInUse = true;
  return sharedScratch;
}

/**
 * Ends the use of a scratch from {@link takeScratch}. The shared one forgets the last buffers it
 * coalesced against, so a finished operation keeps none of the caller's buffers alive.
 */
export function releaseScratch(scratch: RangeScratch): void {
  if (scratch !== sharedScratch) return;
  scratch.reset(0);
  sharedInUse = false;
}
