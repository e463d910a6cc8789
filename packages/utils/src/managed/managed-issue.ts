// How a checked managed-memory operation reaches the driver: the ranges go out in list order,
// each run of ranges bound the same way (host or device) in the form batch-rule.ts gives it.
// Migrations to the host and to a device favour different forms, so they are runs of their own.
import { type Driver, type MemLocation, MemLocationType } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { bufferState, managedRanges } from '@cumem/memory/internal';
import type { CheckedBatchOptions } from '../batch/batch-arguments.js';
import { type BatchDirection, type BatchOperation, type BatchPlan, batchForm } from '../batch/batch-rule.js';
import { type RangeScratch, releaseScratch, takeScratch } from '../batch/range-scratch.js';
import { driverFor } from '../stream-binding.js';

const { discardPrefetchRange, discardRange, prefetchRange } = managedRanges;

/** The managed-memory operations (all but copy). */
export type ManagedOperation = Exclude<BatchOperation, 'copy'>;

/** Per buffer, the index of its location in `distinct`. */
export interface Targets {
  readonly distinct: readonly MemLocation[];
  indexOf(index: number): number;
}

/** What every run of one operation shares. */
interface Operation {
  readonly bound: Driver;
  readonly handle: bigint;
  readonly operation: ManagedOperation;
  readonly targets: Targets;
  readonly options: CheckedBatchOptions;
  readonly plan: BatchPlan;
  /** From takeScratch, for the whole operation. */
  readonly scratch: RangeScratch;
}

/**
 * Issues a checked operation on `stream` as `plan` says (the batch machinery behind `prefetch`
 * / `discard` / `discardPrefetch` for several ranges, and the `*Batch` names).
 */
export function issueManaged(
  operation: ManagedOperation,
  stream: Stream,
  list: readonly Buffer[],
  targets: Targets,
  options: CheckedBatchOptions,
  plan: BatchPlan,
): void {
  const scratch = takeScratch();
  try {
    const run: Operation = {
      bound: driverFor(stream),
      handle: stream.handle,
      operation,
      targets,
      options,
      plan,
      scratch,
    };
    // A forced form and discards (one rule for both directions) need no runs by direction.
    const byDirection = plan.forced === undefined && operation !== 'discard';
    let from = 0;
    while (from < list.length) {
      const direction = byDirection ? directionOf(targets, from) : 'any';
      let to = from + 1;
      while (to < list.length && (!byDirection || directionOf(targets, to) === direction)) to++;
      issueRun(run, list, from, to, direction);
      from = to;
    }
  } finally {
    releaseScratch(scratch);
  }
}

function directionOf(targets: Targets, index: number): BatchDirection {
  const location = targets.distinct[targets.indexOf(index)]!;
  return location.type === MemLocationType.Device ? 'toDevice' : 'toHost';
}

/** Issues the ranges of `list[from, to)`, all going `direction`, as one batch run or a loop. */
function issueRun(
  run: Operation,
  list: readonly Buffer[],
  from: number,
  to: number,
  direction: BatchDirection,
): void {
  const { bound, handle, operation, targets, options, scratch } = run;
  scratch.reset(to - from);
  for (let i = from; i < to; i++) {
    const buffer = list[i]!;
    const size = bufferState(buffer).size;
    if (size !== 0) scratch.push(buffer, size, targets.indexOf(i), options.coalesce);
  }
  if (scratch.count === 0) return;
  if (batchForm(run.plan, operation, direction, scratch.count) === 'loop') {
    scratch.unpackPointers();
    loop(bound, scratch, operation, targets.distinct, handle);
    return;
  }
  scratch.packSizes();
  const chunk = options.chunkSize ?? Number.POSITIVE_INFINITY;
  for (let first = 0; first < scratch.count; first += chunk) {
    const end = Math.min(scratch.count, first + chunk);
    const whole = first === 0 && end === scratch.count;
    const pointers = whole ? scratch.packedPointers : scratch.packedPointers.subarray(first, end);
    const sizes = whole ? scratch.packedSizes : scratch.packedSizes.subarray(first, end);
    if (operation === 'discard') {
      bound.memDiscardBatchAsync(pointers, sizes, end - first, handle);
      continue;
    }
    scratch.buildRuns(first, end, targets.distinct);
    if (operation === 'prefetch') {
      bound.memPrefetchBatchAsync(
        pointers,
        sizes,
        end - first,
        scratch.runLocations,
        scratch.runStarts,
        handle,
      );
    } else {
      bound.memDiscardAndPrefetchBatchAsync(
        pointers,
        sizes,
        end - first,
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
