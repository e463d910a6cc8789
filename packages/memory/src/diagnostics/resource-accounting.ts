// Statistics, a byte limit and allocation tracking for one memory resource (RMM's statistics,
// limiting and tracking adaptors, built in). An object exists only once one of them is turned
// on, so a resource without them pays one null check per allocate and per free. With it, an
// allocate costs a few number updates; a tracker adds a Map entry (and a stack trace if asked).
import { pointerKey } from '../buffer/pointer-key.js';

/** What the accounting needs of its resource (a MemoryResource; typed loosely to keep imports one-way). */
export interface TrackedResource {
  readonly deviceId: number;
  readonly isClosed: boolean;
}

/** Bytes or allocations: now, the most at once since the last reset, and all ever made. */
export interface StatisticsCounter {
  readonly current: number;
  readonly peak: number;
  readonly total: number;
}

/** `mr.statistics()`: what went through the resource since statistics (or a limit, or tracking) began. */
export interface ResourceStatistics {
  /** False while nothing is counted: all numbers are then 0. */
  readonly enabled: boolean;
  readonly bytes: StatisticsCounter;
  readonly allocations: StatisticsCounter;
  /** Allocations that threw (out of memory or over the limit, after recovery). */
  readonly failures: number;
}

/** One allocation seen by a tracker. */
export interface AccountedAllocation {
  readonly pointer: bigint;
  readonly size: number;
  readonly deviceId: number;
  readonly resource: TrackedResource;
  /** Where it was allocated (`new Error().stack`), or null when the tracker takes no stacks. */
  readonly stack: string | null;
}

/** @internal A tracker as the accounting sees it. */
export interface TrackerSink {
  readonly stacks: boolean;
  added(key: number, entry: AccountedAllocation): void;
  removed(key: number): void;
  finalized(key: number): void;
}

/** @internal The per-resource counters; see the file comment. */
export class ResourceAccounting {
  currentBytes = 0;
  peakBytes = 0;
  totalBytes = 0;
  currentCount = 0;
  peakCount = 0;
  totalCount = 0;
  failures = 0;
  /** Byte limit; Infinity when none, so the hot path's check is one comparison. */
  limitBytes = Number.POSITIVE_INFINITY;
  /** Pointers live before counting began (or adopted): their free is not counted. */
  private uncounted: Set<number> | null = null;
  sinks: TrackerSink[] | null = null;
  // Whether any sink takes stacks: asked once per change of the sinks, not per allocation.
  private stacks = false;

  constructor(readonly resource: TrackedResource) {
    // The byte counters pass a small integer's range (2^31) after 2 GiB of allocations, and a
    // field that changes its number representation mid-run slows allocate and close from then
    // on. A fraction stored first makes them doubles from the start, for every resource.
    this.currentBytes = this.peakBytes = this.totalBytes = this.totalCount = 0.5;
    this.currentBytes = this.peakBytes = this.totalBytes = this.totalCount = 0;
  }

  /** True when `size` more bytes stay within the limit. Hot path. */
  fits(size: number): boolean {
    return this.currentBytes + size <= this.limitBytes;
  }

  /** Hot path. */
  allocated(pointer: bigint, size: number): void {
    const bytes = this.currentBytes + size;
    this.currentBytes = bytes;
    if (bytes > this.peakBytes) this.peakBytes = bytes;
    this.totalBytes += size;
    const count = this.currentCount + 1;
    this.currentCount = count;
    if (count > this.peakCount) this.peakCount = count;
    this.totalCount++;
    if (this.sinks !== null) this.track(pointer, size);
  }

  /** Hot path: the pointer's number key is computed only for uncounted pointers and trackers. */
  released(pointer: bigint, size: number): void {
    if (this.uncounted !== null || this.sinks !== null) {
      this.releasedKey(pointerKey(pointer), size);
      return;
    }
    this.currentBytes -= size;
    this.currentCount--;
  }

  private releasedKey(key: number, size: number): void {
    if (this.uncounted?.delete(key)) {
      if (this.uncounted.size === 0) this.uncounted = null;
      return;
    }
    this.currentBytes -= size;
    this.currentCount--;
    if (this.sinks !== null) for (const sink of this.sinks) sink.removed(key);
  }

  /** An allocation changed size in place (VirtualMemoryResource.modifyAllocation); growth counts as allocated bytes. */
  resized(key: number, from: number, to: number): void {
    if (this.uncounted?.has(key)) return;
    const bytes = this.currentBytes + to - from;
    this.currentBytes = bytes;
    if (bytes > this.peakBytes) this.peakBytes = bytes;
    if (to > from) this.totalBytes += to - from;
  }

  /** The finalizer (or out-of-memory recovery) frees a buffer that was never closed. */
  finalized(key: number): void {
    if (this.sinks !== null) for (const sink of this.sinks) sink.finalized(key);
  }

  /** Leaves `keys` (live before counting began, or adopted) out of the counts. */
  ignore(keys: Iterable<number>): void {
    for (const key of keys) {
      this.uncounted ??= new Set();
      this.uncounted.add(key);
    }
  }

  resetPeaks(): void {
    this.peakBytes = this.currentBytes;
    this.peakCount = this.currentCount;
  }

  snapshot(): ResourceStatistics {
    return {
      enabled: true,
      bytes: { current: this.currentBytes, peak: this.peakBytes, total: this.totalBytes },
      allocations: { current: this.currentCount, peak: this.peakCount, total: this.totalCount },
      failures: this.failures,
    };
  }

  addSink(sink: TrackerSink): void {
    this.sinks = this.sinks === null ? [sink] : [...this.sinks, sink];
    this.stacks = this.sinks.some((s) => s.stacks);
  }

  removeSink(sink: TrackerSink): void {
    if (this.sinks === null) return;
    const rest = this.sinks.filter((s) => s !== sink);
    this.sinks = rest.length === 0 ? null : rest;
    this.stacks = rest.some((s) => s.stacks);
  }

  private track(pointer: bigint, size: number): void {
    const sinks = this.sinks as TrackerSink[];
    const stack = this.stacks ? allocationStack() : null;
    const entry: AccountedAllocation = {
      pointer,
      size,
      deviceId: this.resource.deviceId,
      resource: this.resource,
      stack,
    };
    const key = pointerKey(pointer);
    for (const sink of sinks) sink.added(key, entry);
  }
}

/** The caller's stack, without the frames inside cumem's allocate. */
function allocationStack(): string {
  const stack = new Error('allocated').stack ?? '';
  const lines = stack.split('\n');
  // Error line, allocationStack, track, allocated, LiveAllocations.add, <resource>.allocate.
  return lines.slice(6).join('\n');
}

/** @internal What the census holds of a built-in resource. */
export interface CensusEntry {
  readonly resource: TrackedResource;
  accounting: ResourceAccounting | null;
  account(): ResourceAccounting;
}

// Every built-in resource, weakly: memoryReport() lists them, a tracker of all resources
// attaches to them, and out-of-memory recovery trims their pools. Pruned as it grows.
let census: WeakRef<CensusEntry>[] = [];
let pruneAt = 64;
const globalSinks: TrackerSink[] = [];

/** @internal Enrols a new resource; returns its accounting when a tracker of every resource is open. */
export function addToCensus(entry: CensusEntry): ResourceAccounting | null {
  census.push(new WeakRef(entry));
  if (census.length >= pruneAt) {
    census = census.filter((ref) => {
      const live = ref.deref();
      return live !== undefined && !live.resource.isClosed;
    });
    pruneAt = Math.max(64, 2 * census.length);
  }
  if (globalSinks.length === 0) return null;
  const accounting = new ResourceAccounting(entry.resource);
  for (const sink of globalSinks) accounting.addSink(sink);
  return accounting;
}

/** @internal The open built-in resources still alive. */
export function censusEntries(): CensusEntry[] {
  const entries: CensusEntry[] = [];
  for (const ref of census) {
    const entry = ref.deref();
    if (entry !== undefined && !entry.resource.isClosed) entries.push(entry);
  }
  return entries;
}

/** @internal Attaches `sink` to every built-in resource, now and later. */
export function addGlobalSink(sink: TrackerSink): void {
  globalSinks.push(sink);
  for (const entry of censusEntries()) entry.account().addSink(sink);
}

/** @internal Detaches a sink added by {@link addGlobalSink}. */
export function removeGlobalSink(sink: TrackerSink): void {
  const index = globalSinks.indexOf(sink);
  if (index >= 0) globalSinks.splice(index, 1);
  for (const ref of census) ref.deref()?.accounting?.removeSink(sink);
}
