// cuda.core's `advise(targets, advice, location)` (cuda-python PR #1775). The driver has no batch
// advice entry point (CUDA 13.0 batches prefetch and discard only), so a sequence goes out as
// one `cuMemAdvise` per range after neighbouring ranges of one allocation are merged: the fewest
// calls the driver allows.
import { type Location, type ManagedAdvice, type MemLocation, MemLocationType } from '@cumem/core-types';
import { bufferState, managedRanges } from '@cumem/memory/internal';
import { checkBuffers, checkLocations, readOnce } from '../batch/batch-arguments.js';
import { releaseScratch, takeScratch } from '../batch/range-scratch.js';
import { driverFor } from '../stream-binding.js';
import { defaultStreamFor, driverOfTargets, targetList } from './managed-dispatch.js';
import type { ManagedTargets } from './managed-operations.js';

const { adviseRange, checkManagedAdvice } = managedRanges;

/**
 * Applies `advice` to every buffer of `targets` (`cuMemAdvise`), as ManagedBuffer's
 * `readMostly` / `preferredLocation` / `accessedBy` setters do for one.
 * @param targets a ManagedBuffer or an array of them; an empty array does nothing.
 * @param advice one of the six {@link ManagedAdvice} names.
 * @param location needed by `setPreferredLocation` / `setAccessedBy` / `unsetAccessedBy` (for
 *   accessed-by a Device or `new Host()`); the other advices ignore it (checked if given).
 * @throws TypeError (not a buffer or array of them, non-managed buffer, unknown advice, missing
 *   or wrong location), CudaStateError (closed buffer), NotSupportedError (NUMA host location on
 *   a driver without them) — all before any driver call.
 */
export function advise(targets: ManagedTargets, advice: ManagedAdvice, location?: Location): void {
  // Every argument read once, then checked: the buffers last, right before the driver (as
  // managed-dispatch.ts, and for the same reason).
  const candidates = targetList(targets, 'dispatch');
  const locationValue = readOnce(location);
  const checked = checkManagedAdvice(advice, locationValue as Location | undefined);
  const driver = driverOfTargets(candidates);
  const named =
    locationValue === undefined
      ? undefined
      : checkLocations(locationValue, candidates.length, driver, 'location');
  const list = checkBuffers(candidates, 'targets', true, driver);
  if (list.length === 0) return;
  // The stream only binds the first buffer's device context (managed memory is one address
  // space, so every range is advised from it); nothing is ordered on it.
  const stream = defaultStreamFor(list[0]!);
  const bound = driverFor(stream);
  const memLocation: MemLocation =
    checked.usesLocation && named !== undefined
      ? named.distinct[0]!
      : { type: MemLocationType.Device, id: stream.device.ordinal };
  const scratch = takeScratch();
  try {
    scratch.reset(list.length);
    for (const buffer of list) {
      const size = bufferState(buffer).size;
      if (size !== 0) scratch.push(buffer, size, 0, true);
    }
    scratch.unpackPointers();
    const { pointers, sizes, count } = scratch;
    for (let i = 0; i < count; i++) adviseRange(bound, pointers[i]!, sizes[i]!, checked.code, memLocation);
  } finally {
    releaseScratch(scratch);
  }
}
