// The pointers a memory resource handed to Buffers that are still open, so that a pointer has
// one owner: `mr.deallocate` of a live buffer's pointer would free it under the buffer (and a
// pool could be destroyed under it), and a second `Buffer.fromHandle(p, n, { mr })` would free
// it twice. A Set of the addresses as numbers (user-space addresses are below 2^53), no object
// per buffer. A Set add + delete was the largest piece of an allocate + close pair (bench/README.md,
// allocate-close-parts), so the hot path skips it: a new buffer is only counted (`pending`), and
// enters the Set when it outlives its finalizer batch (`settle`, from the buffer's
// finalizerRelease in buffer.ts) or is closed with its free deferred (views,
// native holds). Most buffers are closed within the batch and never touch the Set. The
// questions by address (deallocate, adopt, the start of statistics) first flush the batch, so
// every open buffer's pointer is in the Set when they look: then `pending` is 0, and a free of
// a pointer the Set lacks comes from `mr.deallocate` of memory no buffer owns (see `delete`).
// Statistics, limits and tracking (resource-accounting.ts) hang off the same two calls, so every
// built-in resource gets them; while they are off they cost one null check.
import { CudaStateError } from '@cumem/core-types';
import {
  addToCensus,
  type CensusEntry,
  ResourceAccounting,
  type TrackedResource,
} from '../diagnostics/resource-accounting.js';
import { flushDeferredReleases } from './buffer-release.js';
import { pointerKey as key } from './pointer-key.js';

// Each built-in resource's live pointers, for this package's modules (liveAllocationsOf). A
// resource keeps its own in a private field: with the Set reachable, a program could add any
// address to it and have `mr.deallocate` free memory the resource never gave out.
const byResource = new WeakMap<object, LiveAllocations>();

/** The live pointers of a built-in resource, null for any other; no entry point of the package exports it. */
export function liveAllocationsOf(resource: object): LiveAllocations | null {
  return byResource.get(resource) ?? null;
}

/** Live pointers of one resource. */
export class LiveAllocations implements CensusEntry {
  private readonly pointers = new Set<number>();
  // Buffers handed out and not yet in `pointers`: open ones still in the finalizer batch.
  private pending = 0;
  /** Statistics, limit and trackers; null while all are off. */
  accounting: ResourceAccounting | null = null;

  constructor(readonly resource: TrackedResource) {
    this.accounting = addToCensus(this);
    byResource.set(resource, this);
  }

  /** How many buffers own memory of the resource now. */
  get count(): number {
    return this.pointers.size + this.pending;
  }

  /**
   * Records `size` bytes just handed to a buffer, which the caller then passes to
   * `allocatedBuffer` (so the finalizer batch settles it). Hot path: a count, no Set.
   */
  add(pointer: bigint, size: number): void {
    this.pending++;
    if (this.accounting !== null) this.accounting.allocated(pointer, size);
  }

  /**
   * Puts a buffer's pointer in the Set: when it outlives its finalizer batch, or is closed with
   * its free deferred. Nothing when it is there already (adopted, or a repeated IPC import).
   */
  settle(pointer: bigint): void {
    const number = key(pointer);
    if (this.pointers.has(number)) return;
    this.pointers.add(number);
    this.pending--;
  }

  /**
   * Forgets a freed pointer of `size` bytes; false when it was not live. Hot path. A pointer
   * the Set lacks is a buffer still counted in `pending`, unless `pending` is 0: the free of
   * memory no buffer owns (`mr.deallocate`) comes right after `checkNotOwned`, which settled
   * every open buffer.
   */
  delete(pointer: bigint, size: number): boolean {
    // The common case first: no buffer settled, one pending.
    if (this.pointers.size === 0 && this.pending !== 0) {
      this.pending--;
      if (this.accounting !== null) this.accounting.released(pointer, size);
      return true;
    }
    return this.deleteSettled(pointer, size);
  }

  private deleteSettled(pointer: bigint, size: number): boolean {
    if (this.pointers.size !== 0) {
      const number = key(pointer);
      if (this.pointers.delete(number)) {
        if (this.accounting !== null) this.accounting.released(pointer, size);
        return true;
      }
    }
    if (this.pending === 0) return false;
    this.pending--;
    if (this.accounting !== null) this.accounting.released(pointer, size);
    return true;
  }

  /** Records that the live allocation at `pointer` now holds `to` bytes instead of `from`. */
  resize(pointer: bigint, from: number, to: number): void {
    if (this.accounting !== null) this.accounting.resized(key(pointer), from, to);
  }

  /** True when a live buffer owns `pointer`. */
  has(pointer: bigint): boolean {
    flushDeferredReleases();
    return this.pointers.has(key(pointer));
  }

  /** The accounting, made on first use; allocations live before it are never counted. */
  account(): ResourceAccounting {
    if (this.accounting === null) {
      flushDeferredReleases();
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
    flushDeferredReleases();
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
    flushDeferredReleases();
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
