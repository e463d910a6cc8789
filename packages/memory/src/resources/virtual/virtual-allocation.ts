// One VirtualMemoryResource allocation: its reserved address range (one piece, or more when an
// in-place extension got the address right after it), the physical chunks mapped from its
// start, and the driver steps that change them. Every change is a transaction: a failing step
// undoes the steps before it, newest first, so no range, chunk or mapping leaks.
import type { Driver, MemAccessDescriptor } from '@cumem/core-types';
import { runOrWarn } from '../../runtime/warn-on-failure.js';
import type { VirtualRange } from './virtual-ranges.js';

/** A physical chunk and where it is mapped, as an offset from the allocation's start. */
export interface VirtualChunk {
  readonly handle: bigint;
  readonly size: number;
  readonly offset: number;
}

/** A reserved piece of address space. */
export interface ReservedPiece {
  readonly start: bigint;
  readonly size: number;
}

/** The state of one allocation (not exported from the package). */
export class VirtualAllocation implements VirtualRange {
  /** Mapped bytes: the chunks' sizes added up (a multiple of the granularity). */
  mapped = 0;
  /** True for chunks another process exported (importBuffer): never resized. */
  imported = false;
  readonly chunks: VirtualChunk[] = [];
  /** Slices made of the buffer (Buffer.slice), to refuse a shrink below one that is open. */
  readonly slices: WeakRef<{ readonly handle: bigint; readonly size: number; readonly isClosed: boolean }>[] =
    [];

  constructor(
    /** `MemAccessFlags` of device `ordinal` (the copy policy asks, see virtual-ranges.ts). */
    readonly accessOf: (ordinal: number) => number,
    /** The first byte's address: `buffer.handle`. */
    public base: bigint,
    /** Reserved pieces, contiguous from `base`. */
    public pieces: ReservedPiece[],
    /** The buffer's size in bytes (at most `mapped`). */
    public size: number,
  ) {}

  /** Bytes of address space reserved from `base`. */
  get reserved(): number {
    let total = 0;
    for (const piece of this.pieces) total += piece.size;
    return total;
  }

  /** The largest end offset of an open slice, 0 when none is open. */
  sliceEnd(): number {
    let end = 0;
    for (let i = this.slices.length - 1; i >= 0; i--) {
      const slice = this.slices[i]?.deref();
      if (slice === undefined || slice.isClosed) {
        this.slices.splice(i, 1);
        continue;
      }
      end = Math.max(end, Number(slice.handle - this.base) + slice.size);
    }
    return end;
  }
}

/** Undo steps of one transaction. */
export class Transaction {
  private readonly steps: (() => void)[] = [];

  /** Registers the undo of a step that succeeded. */
  undo(step: () => void): void {
    this.steps.push(step);
  }

  /**
   * Runs `body`; when it throws, the registered undo steps run newest first and the error is
   * rethrown. An undo step that fails is reported as a warning (the rest still run).
   */
  static run<T>(body: (transaction: Transaction) => T): T {
    const transaction = new Transaction();
    try {
      return body(transaction);
    } catch (error) {
      for (const step of transaction.steps.reverse()) {
        runOrWarn(step, 'undoing a failed VirtualMemoryResource step');
      }
      throw error;
    }
  }
}

/** Maps `chunk` at `base + chunk.offset`, undone on a later failure. Access is set by the caller, once per range. */
export function mapChunk(driver: Driver, transaction: Transaction, base: bigint, chunk: VirtualChunk): void {
  const at = base + BigInt(chunk.offset);
  driver.memMap(at, chunk.size, 0, chunk.handle);
  transaction.undo(() => driver.memUnmap(at, chunk.size));
}

/** Grants `access` to `size` bytes at `at` in one driver call. */
export function setAccess(
  driver: Driver,
  at: bigint,
  size: number,
  access: readonly MemAccessDescriptor[],
): void {
  driver.memSetAccess(at, size, access);
}

/** Reserves `size` bytes (at `hint` when the driver can), undone on a later failure. */
export function reserve(
  driver: Driver,
  transaction: Transaction,
  size: number,
  alignment: number,
  hint: bigint,
): ReservedPiece {
  const start = driver.memAddressReserve(size, alignment, hint);
  transaction.undo(() => driver.memAddressFree(start, size));
  return { start, size };
}

/**
 * Unmaps `chunks` at `base` (one `cuMemUnmap` per chunk: cuda.h wants each call to cover whole
 * mappings) and frees `pieces`. The chunks' handles stay: the caller releases or keeps them.
 */
export function unmapAndFree(
  driver: Driver,
  base: bigint,
  chunks: readonly VirtualChunk[],
  pieces: readonly ReservedPiece[],
): void {
  for (const chunk of chunks) driver.memUnmap(base + BigInt(chunk.offset), chunk.size);
  for (const piece of pieces) driver.memAddressFree(piece.start, piece.size);
}
