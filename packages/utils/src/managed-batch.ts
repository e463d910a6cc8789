// prefetchBatch / discardBatch / discardPrefetchBatch: many managed ranges, one operation.
import { type Driver, type Location, type MemLocation, MemLocationType } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { driverOf } from '@cumem/memory';
import {
  type BatchOptions,
  type CheckedBatchOptions,
  checkBatchOptions,
  checkBuffers,
  checkLocations,
} from './batch-arguments.js';
import { type BatchOperation, chooseBatchStrategy, hasBatchEntryPoint } from './batch-strategy.js';
import { sharedScratch, writeSize } from './range-scratch.js';
import { checkStream, driverFor } from './stream-binding.js';

type ManagedOperation = Exclude<BatchOperation, 'copy'>;

// Count-1 arrays for the per-range path, reused so that the loop allocates nothing per range.
const onePointer = new BigUint64Array(1);
const oneSize = new BigUint64Array(1);
const oneSizeHalves = new Uint32Array(oneSize.buffer);
const oneLocation: MemLocation[] = [];
const oneStart = [0];

/**
 * Prefetches each managed buffer to its location (`cuMemPrefetchBatchAsync`, or one
 * `cuMemPrefetchAsync` per range where that is faster or the batch call is missing).
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
  const openStream = checkStream(stream);
  const driver = driverOf(openStream);
  const list = checkBuffers(buffers, 'buffers', true, driver);
  const checkedOptions = checkBatchOptions(options);
  const targets =
    operation === 'discard'
      ? { distinct: [] as MemLocation[], indexOf: () => 0 }
      : checkLocations(locations, list.length, driver);
  const strategy = chooseBatchStrategy(
    driver,
    operation,
    checkedOptions.strategy,
    checkedOptions.requireBatch,
  );
  if (list.length === 0) return;
  const bound = driverFor(openStream);
  if (strategy.kind !== 'split') {
    issue(
      bound,
      operation,
      strategy.kind,
      list,
      targets,
      openStream.handle,
      checkedOptions,
      strategy.chunkSize,
    );
    return;
  }
  // Host-bound ranges one call each, device-bound ones in one batch (see batch-strategy.ts).
  issue(bound, operation, 'loop', list, targets, openStream.handle, checkedOptions, 1, true);
  issue(
    bound,
    operation,
    'batch',
    list,
    targets,
    openStream.handle,
    checkedOptions,
    strategy.chunkSize,
    false,
  );
}

interface Targets {
  readonly distinct: readonly MemLocation[];
  indexOf(index: number): number;
}

function isHostLocation(location: MemLocation): boolean {
  return location.type !== MemLocationType.Device;
}

/** Issues the ranges of `list` (only those bound for the host, or not, when `hostBound` is given). */
function issue(
  bound: Driver,
  operation: ManagedOperation,
  kind: 'batch' | 'loop',
  list: readonly Buffer[],
  targets: Targets,
  handle: bigint,
  options: CheckedBatchOptions,
  defaultChunk: number,
  hostBound?: boolean,
): void {
  const scratch = sharedScratch;
  scratch.reset(list.length);
  for (let i = 0; i < list.length; i++) {
    const buffer = list[i]!;
    const size = buffer.size;
    if (size === 0) continue;
    const target = targets.indexOf(i);
    if (hostBound !== undefined && isHostLocation(targets.distinct[target]!) !== hostBound) continue;
    scratch.push(buffer, size, target, options.coalesce);
  }
  if (scratch.count === 0) return;
  if (kind === 'loop') {
    loop(bound, operation, targets.distinct, handle);
    return;
  }
  scratch.packSizes();
  const chunk = options.chunkSize ?? defaultChunk;
  for (let from = 0; from < scratch.count; from += chunk) {
    const to = Math.min(scratch.count, from + chunk);
    const whole = from === 0 && to === scratch.count;
    const pointers = whole ? scratch.packedPointers : scratch.packedPointers.subarray(from, to);
    const sizes = whole ? scratch.packedSizes : scratch.packedSizes.subarray(from, to);
    if (operation === 'discard') {
      bound.memDiscardBatchAsync(pointers, sizes, to - from, handle);
      continue;
    }
    scratch.buildRuns(from, to, targets.distinct);
    if (operation === 'prefetch') {
      bound.memPrefetchBatchAsync(
        pointers,
        sizes,
        to - from,
        scratch.runLocations,
        scratch.runStarts,
        handle,
      );
    } else {
      bound.memDiscardAndPrefetchBatchAsync(
        pointers,
        sizes,
        to - from,
        scratch.runLocations,
        scratch.runStarts,
        handle,
      );
    }
  }
}

/** One driver call per (coalesced) range. */
function loop(
  driver: Driver,
  operation: ManagedOperation,
  locations: readonly MemLocation[],
  stream: bigint,
): void {
  const scratch = sharedScratch;
  const perRangeBatch =
    operation === 'discard' || (operation === 'discardPrefetch' && hasBatchEntryPoint(driver, operation));
  const { pointers, sizes, targets } = scratch;
  for (let i = 0; i < scratch.count; i++) {
    const location = locations[targets[i]!]!;
    if (!perRangeBatch) {
      driver.memPrefetchAsync(pointers[i]!, sizes[i]!, location, stream);
      continue;
    }
    onePointer[0] = pointers[i]!;
    writeSize(oneSizeHalves, 0, sizes[i]!);
    if (operation === 'discard') {
      driver.memDiscardBatchAsync(onePointer, oneSize, 1, stream);
    } else {
      oneLocation[0] = location;
      driver.memDiscardAndPrefetchBatchAsync(onePointer, oneSize, 1, oneLocation, oneStart, stream);
    }
  }
}
