// cuda.core's managed-memory free functions (cuda-python PR #1775): `prefetch`, `discard` and
// `discardPrefetch` of one ManagedBuffer or a sequence (`advise`: managed-advise.ts). The one
// implementation is managed-dispatch.ts.
import type { Location } from '@cumem/core-types';
import type { ManagedBuffer, Stream } from '@cumem/memory';
import type { BatchOptions } from '../batch/batch-arguments.js';
import { runManagedOperation } from './managed-dispatch.js';

/** One ManagedBuffer, or a sequence of them (an array). */
export type ManagedTargets = ManagedBuffer | readonly ManagedBuffer[];

/** Options of {@link prefetch}, {@link discard} and {@link discardPrefetch}. */
export interface ManagedOperationOptions extends BatchOptions {
  /**
   * The stream the operation is ordered on (asynchronous, as the driver is). Omitted: the first
   * buffer's device's default stream, and the call waits for the operation (as ManagedBuffer's
   * methods do without a stream).
   */
  readonly stream?: Stream;
}

/**
 * Prefetches managed memory to `locations` (`cuMemPrefetchAsync` for one buffer,
 * `cuMemPrefetchBatchAsync` for several bound for a device, one call per range for the host:
 * see `BatchOptions.strategy`).
 * @param targets a ManagedBuffer or an array of them; an empty array does nothing.
 * @param locations one Location for every buffer, or an array paired by index.
 * @throws TypeError (not a buffer or array of them, non-managed buffer, non-location, bad
 *   options), RangeError (`locations` length differs from `targets`), CudaStateError (closed
 *   buffer or stream), NotSupportedError (NUMA host locations on a driver without them;
 *   `requireBatch` without a CUDA 13.0 driver) — all before any driver call.
 */
export function prefetch(
  targets: ManagedTargets,
  locations: Location | readonly Location[],
  options?: ManagedOperationOptions,
): void {
  runManagedOperation('prefetch', targets, locations, options, 'dispatch');
}

/**
 * Discards the contents of managed memory: the pages may read back as anything until written.
 * `cuMemDiscardBatchAsync` (one range per call for one buffer: the driver has no single-range
 * discard).
 * @throws NotSupportedError without a CUDA 13.0 driver; otherwise as {@link prefetch}.
 */
export function discard(targets: ManagedTargets, options?: ManagedOperationOptions): void {
  runManagedOperation('discard', targets, undefined, options, 'dispatch');
}

/**
 * Discards managed memory and prefetches the (now undefined) pages to `locations`
 * (`cuMemDiscardAndPrefetchBatchAsync`). A driver without that CUDA 13.0 entry point gets
 * prefetches instead (unless `requireBatch`): the contents are undefined after a discard, so
 * keeping them is allowed.
 * @throws as {@link prefetch}.
 */
export function discardPrefetch(
  targets: ManagedTargets,
  locations: Location | readonly Location[],
  options?: ManagedOperationOptions,
): void {
  runManagedOperation('discardPrefetch', targets, locations, options, 'dispatch');
}
