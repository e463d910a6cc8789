// The per-range managed-memory driver calls, in one place: ManagedBuffer's methods, and
// @cumem/utils' `advise` / `prefetch` / `discard` / `discardPrefetch` (one range, or the batch
// operations' per-range path), all reach the driver through these. The range functions take a
// raw address and size, unchecked (as `currentDriver()` does): their callers check them against
// open ManagedBuffers first, so a range the caller does not own is never advised, migrated or
// discarded through the safe API.
import {
  type Driver,
  describeValue,
  type ManagedAdvice,
  MemAdvise,
  type MemLocation,
  NotSupportedError,
} from '@cumem/core-types';
import { checkAccessorLocation, checkLocation } from '../../runtime/location-arguments.js';

// The batch entry points read these during the call only, so one set serves every call.
const onePointer = new BigUint64Array(1);
const oneSize = new BigUint64Array(1);
const oneLocation: MemLocation[] = [];
const oneStart = [0];

const adviceCodes: Readonly<Record<ManagedAdvice, MemAdvise>> = Object.freeze({
  setReadMostly: MemAdvise.SetReadMostly,
  unsetReadMostly: MemAdvise.UnsetReadMostly,
  setPreferredLocation: MemAdvise.SetPreferredLocation,
  unsetPreferredLocation: MemAdvise.UnsetPreferredLocation,
  setAccessedBy: MemAdvise.SetAccessedBy,
  unsetAccessedBy: MemAdvise.UnsetAccessedBy,
});

/** A checked {@link ManagedAdvice}: the driver's code, and whether it needs a location. */
export interface CheckedAdvice {
  readonly code: MemAdvise;
  /** True for the advices whose location the driver uses (preferred location, accessed by). */
  readonly usesLocation: boolean;
}

/**
 * Checks `advice` and the `location` it needs, before any driver call.
 * @throws TypeError for an unknown advice, a missing or non-Location location where the advice
 *   uses one, or a NUMA host with accessed-by advice (the driver takes only Device / `new Host()`).
 */
export function checkManagedAdvice(advice: unknown, location: unknown): CheckedAdvice {
  if (typeof advice !== 'string' || !Object.hasOwn(adviceCodes, advice)) {
    throw new TypeError(
      `advice must be one of ${Object.keys(adviceCodes).join(', ')}, got ${describeValue(advice)}`,
    );
  }
  const code = adviceCodes[advice as ManagedAdvice];
  const accessedBy = code === MemAdvise.SetAccessedBy || code === MemAdvise.UnsetAccessedBy;
  const usesLocation = accessedBy || code === MemAdvise.SetPreferredLocation;
  if (usesLocation && location === undefined) {
    throw new TypeError(`advice '${advice}' needs a location (a Device or Host)`);
  }
  if (location !== undefined) {
    if (accessedBy) checkAccessorLocation(location, 'location');
    else checkLocation(location, 'location');
  }
  return { code, usesLocation };
}

/**
 * `cuMemAdvise` on one range.
 *
 * **Unsafe:** the range goes to the driver unchecked (see the file header): for @cumem/utils,
 * which checks it against open ManagedBuffers; users call ManagedBuffer's methods or utils'.
 */
export function adviseRange(
  driver: Driver,
  pointer: bigint,
  size: number,
  advice: MemAdvise | number,
  location: MemLocation,
): void {
  driver.memAdvise(pointer, size, advice, location);
}

/**
 * `cuMemPrefetchAsync` on one range.
 *
 * **Unsafe:** the range goes to the driver unchecked (see the file header): for @cumem/utils,
 * which checks it against open ManagedBuffers; users call ManagedBuffer's methods or utils'.
 */
export function prefetchRange(
  driver: Driver,
  pointer: bigint,
  size: number,
  location: MemLocation,
  stream: bigint,
): void {
  driver.memPrefetchAsync(pointer, size, location, stream);
}

/**
 * Discards one range: `cuMemDiscardBatchAsync` with one range (the driver has no single-range
 * discard).
 *
 * **Unsafe:** the range goes to the driver unchecked (see the file header): for @cumem/utils,
 * which checks it against open ManagedBuffers; users call ManagedBuffer's methods or utils'.
 * @throws NotSupportedError on a driver without the CUDA 13.0 batch entry points.
 */
export function discardRange(driver: Driver, pointer: bigint, size: number, stream: bigint): void {
  checkDiscardSupported(driver, 'discard');
  onePointer[0] = pointer;
  oneSize[0] = BigInt(size);
  driver.memDiscardBatchAsync(onePointer, oneSize, 1, stream);
}

/**
 * Discards one range and prefetches it to `location` (`cuMemDiscardAndPrefetchBatchAsync` with
 * one range). A driver without that entry point gets `cuMemPrefetchAsync` instead: after a
 * discard the contents are undefined, so keeping them is allowed.
 *
 * **Unsafe:** the range goes to the driver unchecked (see the file header): for @cumem/utils,
 * which checks it against open ManagedBuffers; users call ManagedBuffer's methods or utils'.
 */
export function discardPrefetchRange(
  driver: Driver,
  pointer: bigint,
  size: number,
  location: MemLocation,
  stream: bigint,
): void {
  if (!driver.capabilities.batchPrefetchDiscard) {
    driver.memPrefetchAsync(pointer, size, location, stream);
    return;
  }
  onePointer[0] = pointer;
  oneSize[0] = BigInt(size);
  oneLocation[0] = location;
  driver.memDiscardAndPrefetchBatchAsync(onePointer, oneSize, 1, oneLocation, oneStart, stream);
}

/**
 * Refuses discard where the driver cannot do it, before the driver is touched.
 * @throws NotSupportedError naming the CUDA 13.0 driver.
 */
export function checkDiscardSupported(driver: Driver, what: string): void {
  if (!driver.capabilities.batchPrefetchDiscard) {
    throw new NotSupportedError(
      `${what} needs cuMemDiscardBatchAsync, which needs a CUDA 13.0 driver (discard has no single-range ` +
        `entry point; driver ${driver.name} reports capabilities.batchPrefetchDiscard = false)`,
    );
  }
}
