// How a checked managed-memory operation reaches the driver: per range (the calls of
// @cumem/memory's managed-range.ts), in batch calls, or split by direction (batch-strategy.ts).
import { type Driver, type MemLocation, MemLocationType } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { discardPrefetchRange, discardRange, prefetchRange } from '@cumem/memory/internal';
import type { CheckedBatchOptions } from './batch-arguments.js';
import type { BatchOperation, ResolvedBatchStrategy } from './batch-strategy.js';
import { sharedScratch } from './range-scratch.js';
import { driverFor } from './stream-binding.js';

/** The managed-memory operations (all but copy). */
export type ManagedOperation = Exclude<BatchOperation, 'copy'>;

/** Per buffer, the index of its location in `distinct`. */
export interface Targets {
  readonly distinct: readonly MemLocation[];
  indexOf(index: number): number;
}

/**
 * Issues a checked operation on `stream` the way `strategy` says (the batch machinery behind
 * `prefetch` / `discard` / `discardPrefetch` for several ranges, and the `*Batch` names).
 */
export function issueManaged(
  operation: ManagedOperation,
  stream: Stream,
  list: readonly Buffer[],
  targets: Targets,
  options: CheckedBatchOptions,
  strategy: ResolvedBatchStrategy,
): void {
  const bound = driverFor(stream);
  const handle = stream.handle;
  if (strategy.kind !== 'split') {
    issue(bound, operation, strategy.kind, list, targets, handle, options, strategy.chunkSize);
    return;
  }
  // Host-bound ranges one call each, device-bound ones in one batch (see batch-strategy.ts).
  issue(bound, operation, 'loop', list, targets, handle, options, 1, true);
  issue(bound, operation, 'batch', list, targets, handle, options, strategy.chunkSize, false);
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

/** One driver call per (coalesced) range: the per-range calls of @cumem/memory. */
function loop(
  driver: Driver,
  operation: ManagedOperation,
  locations: readonly MemLocation[],
  stream: bigint,
): void {
  const { pointers, sizes, targets, count } = sharedScratch;
  for (let i = 0; i < count; i++) {
    if (operation === 'discard') {
      discardRange(driver, pointers[i]!, sizes[i]!, stream);
      continue;
    }
    const location = locations[targets[i]!]!;
    if (operation === 'prefetch') prefetchRange(driver, pointers[i]!, sizes[i]!, location, stream);
    else discardPrefetchRange(driver, pointers[i]!, sizes[i]!, location, stream);
  }
}
