// How a checked managed-memory operation reaches the driver: per range (the calls of
// @cumem/memory's managed-range.ts) or in batch calls, forced, or for 'auto' as learned on the
// device per size class (batch-timing.ts) and, for prefetches, per direction: the ranges bound
// for the host and those bound for a device are two parts, each timed and chosen on its own.
import { type Driver, type MemLocation, MemLocationType } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { bufferByteSize, discardPrefetchRange, discardRange, prefetchRange } from '@cumem/memory/internal';
import type { CheckedBatchOptions } from './batch-arguments.js';
import type { BatchForm } from './batch-learning.js';
import type { BatchOperation, ResolvedBatchStrategy } from './batch-strategy.js';
import { type BatchDirection, beginMeasuredBatch } from './batch-timing.js';
import { type RangeScratch, releaseScratch, takeScratch } from './range-scratch.js';
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
  const { kind, measured } = strategy;
  const scratch = takeScratch();
  try {
    issueParts(
      { bound, stream, operation, list, targets, options, measured, chunk: strategy.chunkSize, scratch },
      kind,
    );
  } finally {
    releaseScratch(scratch);
  }
}

function issueParts(part: Part, kind: ResolvedBatchStrategy['kind']): void {
  const { operation, targets, measured } = part;
  if (operation === 'discard' || (kind !== 'split' && !measured)) {
    issue(part, kind === 'loop' ? 'loop' : 'batch', 0);
    return;
  }
  // By direction: host-bound ranges first, then device-bound ones ('split' without timing:
  // host-bound one call each, device-bound in one batch call, see batch-strategy.ts).
  let toHost = false;
  let toDevice = false;
  for (const location of targets.distinct) {
    if (isHostLocation(location)) toHost = true;
    else toDevice = true;
  }
  const mixed = toHost && toDevice;
  if (toHost) issue(part, kind === 'batch' ? 'batch' : 'loop', 2, mixed ? true : undefined);
  if (toDevice) issue(part, kind === 'loop' ? 'loop' : 'batch', 1, mixed ? false : undefined);
}

/** What every part of one operation shares. */
interface Part {
  readonly bound: Driver;
  readonly stream: Stream;
  readonly operation: ManagedOperation;
  readonly list: readonly Buffer[];
  readonly targets: Targets;
  readonly options: CheckedBatchOptions;
  readonly measured: boolean;
  readonly chunk: number;
  /** From takeScratch, for the whole operation. */
  readonly scratch: RangeScratch;
}

function isHostLocation(location: MemLocation): boolean {
  return location.type !== MemLocationType.Device;
}

/**
 * Issues the ranges of the part's list (only those bound for the host, or not, when
 * `hostBound` is given) in the learned form, or `fallback` when untimed.
 */
function issue(part: Part, fallback: BatchForm, direction: BatchDirection, hostBound?: boolean): void {
  const { bound, operation, list, targets, options } = part;
  const handle = part.stream.handle;
  const scratch = part.scratch;
  scratch.reset(list.length);
  let bytes = 0;
  for (let i = 0; i < list.length; i++) {
    const buffer = list[i]!;
    const size = bufferByteSize(buffer);
    if (size === 0) continue;
    const target = targets.indexOf(i);
    if (hostBound !== undefined && isHostLocation(targets.distinct[target]!) !== hostBound) continue;
    scratch.push(buffer, size, target, options.coalesce);
    bytes += size;
  }
  if (scratch.count === 0) return;
  const timing = beginMeasuredBatch(
    bound,
    part.stream,
    operation,
    direction,
    scratch.count,
    bytes,
    part.measured,
    fallback,
  );
  if (timing.kind === 'loop') {
    scratch.unpackPointers();
    loop(bound, scratch, operation, targets.distinct, handle);
    timing.end();
    return;
  }
  scratch.packSizes();
  const chunk = options.chunkSize ?? part.chunk;
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
  timing.end();
}

/** One driver call per (coalesced) range: the per-range calls of @cumem/memory. */
function loop(
  driver: Driver,
  scratch: RangeScratch,
  operation: ManagedOperation,
  locations: readonly MemLocation[],
  stream: bigint,
): void {
  const { pointers, sizes, targets, count } = scratch;
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
