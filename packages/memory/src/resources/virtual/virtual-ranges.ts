// The address ranges VirtualMemoryResources have mapped, per driver runtime, so that the copy
// policy (peer-copy.ts) can tell VMM memory from cuMemAlloc memory: VMM memory of another device
// is reachable only where cuMemSetAccess granted access (context peer access does not apply),
// while the driver has no cheap query that says a pointer is VMM memory.
import type { Driver } from '@cumem/core-types';
import type { DriverRuntime } from '../../runtime/driver-runtime.js';
import { perRuntimeState } from '../../runtime/per-runtime-state.js';

/** One live VMM allocation: its current range, and the access a device has to it. */
export interface VirtualRange {
  readonly base: bigint;
  readonly mapped: number;
  /** The buffer's size now (at most `mapped`): what a claim on its memory may reach. */
  readonly size: number;
  /** `MemAccessFlags` of device `ordinal`. */
  accessOf(ordinal: number): number;
}

// The runtime of each driver that has had VMM memory, so that a lookup by driver (the range
// lookup gets a Driver) never selects or loads a driver of its own.
const runtimesWithRanges = new WeakMap<Driver, DriverRuntime>();

/** The ranges VirtualMemoryResources have mapped, per runtime. */
const virtualRangesOf = perRuntimeState(() => new Set<VirtualRange>());

/** Records a live allocation (its base and size are read at each lookup: they change on a resize). */
export function addVirtualRange(runtime: DriverRuntime, range: VirtualRange): void {
  runtimesWithRanges.set(runtime.driver, runtime);
  virtualRangesOf(runtime).add(range);
}

/** Forgets a freed allocation. */
export function deleteVirtualRange(runtime: DriverRuntime, range: VirtualRange): void {
  virtualRangesOf(runtime).delete(range);
}

/** The access device `on` has to the VMM memory at `pointer`, or undefined when it is not VMM memory of cumem. */
export function virtualAccess(runtime: DriverRuntime, pointer: bigint, on: number): number | undefined {
  const set = virtualRangesOf(runtime);
  if (set.size === 0) return undefined;
  for (const range of set) {
    if (pointer >= range.base && pointer < range.base + BigInt(range.mapped)) return range.accessOf(on);
  }
  return undefined;
}

/**
 * The live cumem VMM allocation of `driver`'s runtime whose mapped range holds `pointer`, or
 * undefined for any other memory. Its base and size are read at each use: they change on a resize.
 */
export function virtualRangeAt(driver: Driver, pointer: bigint): VirtualRange | undefined {
  const runtime = runtimesWithRanges.get(driver);
  if (runtime === undefined) return undefined;
  const set = virtualRangesOf(runtime);
  if (set.size === 0) return undefined;
  for (const range of set) {
    if (pointer >= range.base && pointer < range.base + BigInt(range.mapped)) return range;
  }
  return undefined;
}

/**
 * `[start, end)` of the cumem VMM allocation holding `pointer`, as it is now (read at each call:
 * a shrink or a moving grow changes it), or undefined for memory that is not a live VMM
 * allocation of `driver`'s runtime. The range lookup (buffer/pointer-range.ts) asks this first,
 * so a CUDA Array Interface or a handle captured before a shrink cannot claim the unmapped tail.
 */
export function liveVirtualRange(
  driver: Driver,
  pointer: bigint,
): { start: bigint; end: bigint } | undefined {
  const range = virtualRangeAt(driver, pointer);
  return range === undefined ? undefined : { start: range.base, end: range.base + BigInt(range.size) };
}
