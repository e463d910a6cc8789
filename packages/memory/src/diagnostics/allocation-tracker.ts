// Leak tracking (RMM's tracking adaptor): the allocations still outstanding, each with where it
// was made, and what RMM cannot report, the buffers the finalizer had to free because the
// program dropped them without close(). Opt-in; a tracker costs a Map entry per allocation,
// plus a stack trace (`new Error().stack`, microseconds) when asked for.
import { checkBoolean, checkOptions, checkSize, describeValue } from '@cumem/core-types';
import { liveAllocationsOf } from '../buffer/live-allocations.js';
import { MemoryResource } from '../buffer/memory-resource.js';
import { type AccountedAllocation, addGlobalSink, removeGlobalSink } from './resource-accounting.js';

/** One allocation a tracker saw. */
export interface TrackedAllocation {
  /** The address. */
  readonly pointer: bigint;
  readonly size: number;
  /** The resource's device, or -1 for host memory. */
  readonly deviceId: number;
  readonly resource: MemoryResource;
  /** Where it was allocated (stack frames below the allocate call), or null without `stacks`. */
  readonly stack: string | null;
}

/** Options of {@link trackAllocations}. */
export interface TrackAllocationsOptions {
  /** Record each allocation's stack trace (default false; costs microseconds per allocation). */
  readonly stacks?: boolean;
  /** Track this resource only (default: every built-in resource, also those made later). */
  readonly resource?: MemoryResource;
  /** How many finalizer-released entries to keep, newest last (default 1000). */
  readonly keepReleased?: number;
}

const trackerToken = Symbol('cumem.allocationTracker');
// How many of the newest allocations a tracker keeps in its arrays before they move to the Map.
const recentLimit = 16;

/** Allocations seen since {@link trackAllocations}: outstanding, and dropped without close(). */
// A TrackerSink (resource-accounting.ts) by shape: no `implements`, which would name an internal type.
export class AllocationTracker {
  /** @internal */ readonly stacks: boolean;
  private readonly live = new Map<number, AccountedAllocation>();
  // The newest allocations, oldest first, before they enter `live`: most buffers are closed
  // within a few allocations, and a Map set + delete per buffer cost more than the rest of the
  // tracker (bench/js/allocate-close-parts.mjs, `tracking`). Full, they all move to `live`.
  private readonly recentKeys: number[] = [];
  private readonly recentEntries: AccountedAllocation[] = [];
  private readonly dropped: AccountedAllocation[] = [];
  private droppedTotal = 0;
  private closed = false;

  /**
   * Not for use: get an AllocationTracker from {@link trackAllocations}. Called directly, it
   * throws a TypeError naming it.
   */
  private constructor(
    token: symbol,
    stacks: boolean,
    private readonly resource: MemoryResource | undefined,
    private readonly keepReleased: number,
  ) {
    if (token !== trackerToken) {
      throw new TypeError('AllocationTracker has no public constructor: use trackAllocations() to get one');
    }
    this.stacks = stacks;
  }

  /** Allocations made since tracking began and not yet freed, oldest first. */
  outstanding(): TrackedAllocation[] {
    return [...this.live.values(), ...this.recentEntries] as TrackedAllocation[];
  }

  /**
   * Buffers the garbage collector found dropped without `close()`, whose memory the finalizer
   * (or out-of-memory recovery) had to free: leaks of the program, with where they were made.
   * The newest `keepReleased` are kept; {@link releasedByFinalizerCount} counts them all.
   */
  releasedByFinalizer(): TrackedAllocation[] {
    return [...this.dropped] as TrackedAllocation[];
  }

  /** How many tracked buffers the finalizer released, including those no longer listed. */
  get releasedByFinalizerCount(): number {
    return this.droppedTotal;
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Stops tracking; the lists stay readable. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.resource === undefined) removeGlobalSink(this);
    else liveAllocationsOf(this.resource)?.accounting?.removeSink(this);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** @internal */
  added(key: number, entry: AccountedAllocation): void {
    if (this.recentKeys.length === recentLimit) this.spillRecent();
    this.recentKeys.push(key);
    this.recentEntries.push(entry);
  }

  /** @internal */
  removed(key: number): void {
    this.take(key);
  }

  /** @internal */
  finalized(key: number): void {
    const entry = this.take(key);
    if (entry === undefined) return;
    this.droppedTotal++;
    this.dropped.push(entry);
    if (this.dropped.length > this.keepReleased) this.dropped.shift();
  }

  // Removes and returns the allocation filed under `key`: the newest first, then `live`.
  private take(key: number): AccountedAllocation | undefined {
    const keys = this.recentKeys;
    for (let index = keys.length - 1; index >= 0; index--) {
      if (keys[index] !== key) continue;
      const entry = this.recentEntries[index];
      if (index === keys.length - 1) {
        keys.pop();
        this.recentEntries.pop();
      } else {
        keys.splice(index, 1);
        this.recentEntries.splice(index, 1);
      }
      return entry;
    }
    const entry = this.live.get(key);
    if (entry !== undefined) this.live.delete(key);
    return entry;
  }

  private spillRecent(): void {
    for (let index = 0; index < this.recentKeys.length; index++) {
      this.live.set(this.recentKeys[index] as number, this.recentEntries[index] as AccountedAllocation);
    }
    this.recentKeys.length = 0;
    this.recentEntries.length = 0;
  }
}

/**
 * Starts tracking allocations of built-in resources: those of `options.resource`, or of every
 * resource (including ones made later). Allocations made before are not seen.
 * @throws TypeError for bad options; NotSupportedError for a resource not built into cumem.
 */
export function trackAllocations(options?: TrackAllocationsOptions): AllocationTracker {
  const { stacks = false, resource, keepReleased = 1000 } = checkOptions(options, 'trackAllocations options');
  checkBoolean(stacks, 'stacks');
  checkSize(keepReleased, 'keepReleased');
  if (resource !== undefined && !(resource instanceof MemoryResource)) {
    throw new TypeError(`resource must be a MemoryResource, got ${describeValue(resource)}`);
  }
  const TrackerClass = AllocationTracker as unknown as new (
    ...parts: [symbol, boolean, MemoryResource | undefined, number]
  ) => AllocationTracker;
  const tracker = new TrackerClass(trackerToken, stacks, resource, keepReleased);
  if (resource === undefined) addGlobalSink(tracker);
  else {
    resource.enableStatistics();
    liveAllocationsOf(resource)?.account().addSink(tracker);
  }
  return tracker;
}
