// The address ranges VirtualMemoryResources have mapped, per driver runtime, so that the copy
// policy (peer-copy.ts) can tell VMM memory from cuMemAlloc memory: VMM memory of another device
// is reachable only where cuMemSetAccess granted access (context peer access does not apply),
// while the driver has no cheap query that says a pointer is VMM memory.
import { type DriverRuntime, runtimeState } from '../../runtime/driver-runtime.js';

/** One live VMM allocation: its current range, and the access a device has to it. */
export interface VirtualRange {
  readonly base: bigint;
  readonly mapped: number;
  /** `MemAccessFlags` of device `ordinal`. */
  accessOf(ordinal: number): number;
}

/** Records a live allocation (its base and size are read at each lookup: they change on a resize). */
export function addVirtualRange(runtime: DriverRuntime, range: VirtualRange): void {
  runtimeState(runtime).virtualRanges.add(range);
}

/** Forgets a freed allocation. */
export function deleteVirtualRange(runtime: DriverRuntime, range: VirtualRange): void {
  runtimeState(runtime).virtualRanges.delete(range);
}

/** The access device `on` has to the VMM memory at `pointer`, or undefined when it is not VMM memory of cumem. */
export function virtualAccess(runtime: DriverRuntime, pointer: bigint, on: number): number | undefined {
  const set = runtimeState(runtime).virtualRanges;
  if (set.size === 0) return undefined;
  for (const range of set) {
    if (pointer >= range.base && pointer < range.base + BigInt(range.mapped)) return range.accessOf(on);
  }
  return undefined;
}
