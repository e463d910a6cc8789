// prefetchBatch / discardBatch / discardPrefetchBatch: many managed ranges, one operation, always
// through the batch machinery; the same implementation as the free functions (managed-dispatch.ts).
import { checkOptions, type Location } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import type { BatchOptions } from '../batch/batch-arguments.js';
import { runManagedOperation } from './managed-dispatch.js';
import type { ManagedOperation } from './managed-issue.js';

/**
 * Prefetches each managed buffer to its location (`cuMemPrefetchBatchAsync`, or one
 * `cuMemPrefetchAsync` per range for ranges bound for the host, or without the batch call:
 * the fixed rule of batch-rule.ts).
 * @param stream the stream the prefetches are ordered on (asynchronous, as the driver is).
 * @param buffers ManagedBuffers; an empty array does nothing.
 * @param locations one Location for all, or one per buffer (paired by index).
 * @throws TypeError (non-array, non-managed buffer, non-location), RangeError (length mismatch),
 *   CudaStateError (closed stream or buffer), NotSupportedError (`requireBatch` without a CUDA 13
 *   driver; NUMA hosts without support) — all before any driver call.
 */
export function prefetchBatch(
  stream: Stream,
  buffers: readonly Buffer[],
  locations: Location | readonly Location[],
  options?: BatchOptions,
): void {
  runManagedBatch('prefetch', stream, buffers, locations, options);
}

/**
 * Discards the contents of each managed buffer (`cuMemDiscardBatchAsync`): the pages may be
 * dropped without write-back, and later reads see undefined values.
 * @throws NotSupportedError without a CUDA 13.0 driver: discard has no single-range entry point.
 *   Other errors as {@link prefetchBatch}.
 */
export function discardBatch(stream: Stream, buffers: readonly Buffer[], options?: BatchOptions): void {
  runManagedBatch('discard', stream, buffers, undefined, options);
}

/**
 * Discards each managed buffer's contents and prefetches it to its location without moving
 * the old data (`cuMemDiscardAndPrefetchBatchAsync`). Without the CUDA 13.0 batch entry point
 * (and without `requireBatch`) it prefetches instead: the contents are undefined after a
 * discard either way, so keeping them is allowed.
 * @throws as {@link prefetchBatch}.
 */
export function discardPrefetchBatch(
  stream: Stream,
  buffers: readonly Buffer[],
  locations: Location | readonly Location[],
  options?: BatchOptions,
): void {
  runManagedBatch('discardPrefetch', stream, buffers, locations, options);
}

function runManagedBatch(
  operation: ManagedOperation,
  stream: Stream,
  buffers: unknown,
  locations: unknown,
  options: BatchOptions | undefined,
): void {
  // The same implementation as the free functions, always on the batch path (even for one range).
  runManagedOperation(operation, buffers, locations, { ...checkOptions(options), stream }, 'batch');
}
