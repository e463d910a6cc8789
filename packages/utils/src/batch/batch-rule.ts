// How each batch operation reaches the driver: one fixed rule per operation and direction, the
// batch entry point where the driver has it and the list is long enough, else one call per
// range. The rules come from the 1024-range rows of bench/ (bench/README.md, "Managed batch
// rows" and `utils.copyBatch`, results in bench/results/); nothing is timed at run time, so the
// same call takes the same driver path every time, and no event is ever recorded on the
// caller's stream (which may be capturing a CUDA graph).
import { checkBoolean, type Driver, describeValue, NotSupportedError } from '@cumem/core-types';

/** The operations of this package that can take the batch or the loop path. */
export type BatchOperation = 'prefetch' | 'discard' | 'discardPrefetch' | 'copy';

/**
 * `'auto'` (default): the fixed rule of the operation (see `BatchOptions.strategy`). `'batch'`:
 * the driver's batch entry point (NotSupportedError without it). `'loop'`: one driver call per
 * range (discard: the batch entry point with one range per call).
 */
export type BatchStrategy = 'auto' | 'batch' | 'loop';

/** The two ways a run of ranges can reach the driver. */
export type BatchForm = 'batch' | 'loop';

/** Where a run of ranges goes: migrations differ by direction, copies and discards do not. */
export type BatchDirection = 'toDevice' | 'toHost' | 'any';

/** When `'auto'` takes the batch entry point. */
interface BatchRule {
  /** Fewest ranges (after coalescing) that go out as one batch call; fewer go one call each. */
  readonly minRanges: number;
  /** Why, from the measurements. */
  readonly reason: string;
}

type RuleKey =
  | `${Exclude<BatchOperation, 'discard' | 'copy'>}:${Exclude<BatchDirection, 'any'>}`
  | 'discard'
  | 'copy';

/** The rules of `'auto'`, one per operation (per direction for migrations). */
const batchRules: Readonly<Record<RuleKey, BatchRule>> = Object.freeze({
  copy: {
    minRanges: 2,
    reason:
      'one cuMemcpyBatchAsync beat a loop of cuMemcpyAsync on nearly every host, several times over across devices',
  },
  discard: {
    minRanges: 1,
    reason: 'there is no single-range discard, and one batch call beat one call per range on every host',
  },
  'prefetch:toDevice': {
    minRanges: 2,
    reason:
      'the loop was often a little faster, but on some runs of every host about twice as slow; the batch call stayed steady',
  },
  'prefetch:toHost': {
    minRanges: Number.POSITIVE_INFINITY,
    reason: 'one cuMemPrefetchAsync per range beat the batch call in every run on every host',
  },
  'discardPrefetch:toDevice': {
    minRanges: 2,
    reason: 'as prefetches to a device: the loop sometimes took twice as long, the batch call did not',
  },
  'discardPrefetch:toHost': {
    minRanges: Number.POSITIVE_INFINITY,
    reason: 'as prefetches to the host: one call per range beat the batch call in every run',
  },
});

/** How an operation reaches the driver, decided before any driver call. */
export interface BatchPlan {
  /** The caller's forced form, or undefined to follow the rule per run of ranges. */
  readonly forced: BatchForm | undefined;
  /** The driver has the operation's batch entry point. */
  readonly hasBatch: boolean;
}

const batchVersion: Record<BatchOperation, string> = {
  prefetch: 'CUDA 13.0 (cuMemPrefetchBatchAsync)',
  discard: 'CUDA 13.0 (cuMemDiscardBatchAsync)',
  discardPrefetch: 'CUDA 13.0 (cuMemDiscardAndPrefetchBatchAsync)',
  copy: 'CUDA 12.8 (cuMemcpyBatchAsync)',
};

/** True when the driver has the batch entry point of `operation`. */
export function hasBatchEntryPoint(driver: Driver, operation: BatchOperation): boolean {
  const capabilities = driver.capabilities;
  return operation === 'copy' ? capabilities.batchMemcpy : capabilities.batchPrefetchDiscard;
}

/** Checks a `strategy` option. @throws TypeError for anything but 'auto' | 'batch' | 'loop'. */
export function checkStrategy(value: unknown): BatchStrategy {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'batch' || value === 'loop') return value;
  throw new TypeError(`strategy must be 'auto', 'batch' or 'loop', got ${describeValue(value)}`);
}

/**
 * The plan of `operation` on `driver` for the checked `strategy` and `requireBatch`. Reads
 * `driver.capabilities` only (no driver call).
 * @throws NotSupportedError when the batch entry point is required (requireBatch, strategy
 *   'batch', or a discard, which has no single-range entry point) and the driver lacks it.
 * @throws TypeError for `requireBatch` together with strategy 'loop'.
 */
export function planBatch(
  driver: Driver,
  operation: BatchOperation,
  strategy: BatchStrategy,
  requireBatch: boolean,
): BatchPlan {
  checkBoolean(requireBatch, 'requireBatch');
  if (requireBatch && strategy === 'loop') {
    throw new TypeError("requireBatch: true contradicts strategy: 'loop'");
  }
  const hasBatch = hasBatchEntryPoint(driver, operation);
  const needsBatch = requireBatch || strategy === 'batch' || operation === 'discard';
  if (needsBatch && !hasBatch) {
    const why =
      operation === 'discard' ? 'discard has no single-range driver entry point; it' : `${operation} batch`;
    throw new NotSupportedError(
      `${why} needs a driver with ${batchVersion[operation]}; this driver is version ${driver.driverVersion}`,
    );
  }
  const forced = requireBatch || strategy === 'batch' ? 'batch' : strategy === 'loop' ? 'loop' : undefined;
  return { forced, hasBatch };
}

/**
 * The form of one run of `ranges` driver ranges (after coalescing), all going `direction`: the
 * forced form, else the operation's rule (the loop where the driver has no batch entry point).
 */
export function batchForm(
  plan: BatchPlan,
  operation: BatchOperation,
  direction: BatchDirection,
  ranges: number,
): BatchForm {
  if (plan.forced !== undefined) return plan.forced;
  if (!plan.hasBatch) return 'loop';
  return ranges >= batchRules[ruleKey(operation, direction)].minRanges ? 'batch' : 'loop';
}

function ruleKey(operation: BatchOperation, direction: BatchDirection): RuleKey {
  if (operation === 'copy' || operation === 'discard') return operation;
  return `${operation}:${direction === 'toHost' ? 'toHost' : 'toDevice'}`;
}
