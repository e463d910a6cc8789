// How each batch operation reaches the driver: forced by the caller, or for 'auto' learned on
// the running machine (batch-learning.ts, timed by batch-timing.ts), with a table of earlier
// measurements as the fallback where nothing can be timed.
//
// The batch entry points are not always faster than a loop of single calls, and which is
// faster differs between machines with the same driver: in C, per 1024 ranges of 64 KiB
// including the stream sync, on an NVIDIA H200 (driver 580.159.04) migrations to the device
// went faster as one batch call and migrations to the host as one call per range (by 1.2x to
// 1.9x), while on 4x H100 (driver 580.159) the loop of prefetches beat the batch call (26.3 vs
// 34.5 ms). So 'auto' times both forms per size class and direction on the device and keeps the
// faster; the table below is what it does when events cannot time (and what it assumes before
// a measurement: the first calls of a class time both forms anyway).
import { checkBoolean, type Driver, describeValue, NotSupportedError } from '@cumem/core-types';

/** The operations of this package that can take the batch or the loop path. */
export type BatchOperation = 'prefetch' | 'discard' | 'discardPrefetch' | 'copy';

/**
 * `'auto'` (default): the faster path as timed on the running machine (see `BatchOptions.strategy`). `'batch'`: the driver's
 * batch entry point (NotSupportedError without it). `'loop'`: one driver call per range.
 */
export type BatchStrategy = 'auto' | 'batch' | 'loop';

/**
 * How `'auto'` reaches the driver: `'batch'`, `'loop'`, or `'split'` — ranges bound for the host
 * one call each, ranges bound for a device in one batch call.
 */
export type BatchKind = 'batch' | 'loop' | 'split';

/** The path an operation takes. */
export interface ResolvedBatchStrategy {
  /** `'batch'`: batch entry point, up to `chunkSize` ranges per call. `'loop'`: one call per range. `'split'`: see {@link BatchKind}. */
  readonly kind: BatchKind;
  /** Most ranges per batch call (Infinity = all in one call). */
  readonly chunkSize: number;
  /**
   * True for `'auto'` where both forms exist: each call's parts then take the form learned on
   * the device for their size class (timed with events on the first calls of the class and now
   * and then after), and `kind` is only the fallback for when nothing can be timed.
   */
  readonly measured: boolean;
}

/** One row of the measured policy. A driver matches when `minDriverVersion <= driverVersion < maxDriverVersion`. */
export interface BatchStrategyRule {
  readonly operation: BatchOperation;
  /** `cuDriverGetVersion` lower bound, inclusive (13000 = CUDA 13.0). */
  readonly minDriverVersion: number;
  /** Upper bound, exclusive. */
  readonly maxDriverVersion: number;
  readonly kind: BatchKind;
  /** Ranges per batch call; Infinity for one call. */
  readonly chunkSize: number;
  /** Where the choice comes from: a measurement, or why it is assumed. */
  readonly evidence: string;
}

// The rows measured on one machine (bench/ in C) for the CUDA 13.0 entry points.
const measuredOnH200 = 'measured, H200 + driver 580.159.04 (CUDA 13.0)';
const cuda13Onwards = { minDriverVersion: 13000, maxDriverVersion: Number.POSITIVE_INFINITY } as const;

/**
 * What `'auto'` falls back to where the device cannot time (events failed), first matching row
 * wins; rows without a measurement choose the loop. Measured on the H200 above: `bench/` times
 * every strategy.
 */
export const BATCH_STRATEGY_TABLE: readonly BatchStrategyRule[] = Object.freeze([
  {
    operation: 'prefetch',
    ...cuda13Onwards,
    kind: 'split',
    chunkSize: Number.POSITIVE_INFINITY,
    evidence:
      `${measuredOnH200}, C, 1024 x 64 KiB, every step all ranges one way: ` +
      'to the device batch 31287 / loop 61911 us and 28792 / 35849 us (two runs); ' +
      'to the host loop 19800 / batch 24009 us and 17465 / 28980 us',
  },
  {
    operation: 'discardPrefetch',
    ...cuda13Onwards,
    kind: 'split',
    chunkSize: Number.POSITIVE_INFINITY,
    evidence:
      `${measuredOnH200}, C, 1024 x 64 KiB, every step all ranges one way: ` +
      'to the device batch 31407 / loop 40402 us and 24323 / 23733 us (two runs); ' +
      'to the host loop 15454 / batch 28929 us and 12925 / 24617 us',
  },
  {
    operation: 'discard',
    ...cuda13Onwards,
    kind: 'batch',
    chunkSize: Number.POSITIVE_INFINITY,
    evidence: `${measuredOnH200}, C, 1024 x 64 KiB: loop 8478 us, batch 6945 us`,
  },
  {
    operation: 'copy',
    ...cuda13Onwards,
    kind: 'batch',
    chunkSize: Number.POSITIVE_INFINITY,
    evidence:
      `${measuredOnH200}, 1024 x 64 KiB device to device: C loop 3064 us, ` +
      'batch 2967 us; cumem batch 3332-3361 us, loop 3567-3857 us (a JS call per range costs more than C)',
  },
  {
    operation: 'copy',
    minDriverVersion: 12080,
    maxDriverVersion: 13000,
    kind: 'loop',
    chunkSize: Number.POSITIVE_INFINITY,
    evidence: 'unmeasured on CUDA 12.8 / 12.9: loop until bench/ shows cuMemcpyBatchAsync faster there',
  },
]);

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
 * The path `operation` takes on `driver`: forced (`'batch'`, `'loop'`, `requireBatch`), or for
 * `'auto'` learned per call where both forms exist (`measured`; `kind` is then the fallback).
 * Reads `driver.driverVersion` and `capabilities` only (no counted driver call).
 * @throws NotSupportedError when the batch entry point is required (requireBatch, strategy
 *   'batch', or a discard, which has no single-range entry point) and the driver lacks it.
 * @throws TypeError for `requireBatch` together with strategy 'loop'.
 */
export function chooseBatchStrategy(
  driver: Driver,
  operation: BatchOperation,
  requested: BatchStrategy,
  requireBatch: boolean,
  table: readonly BatchStrategyRule[] = BATCH_STRATEGY_TABLE,
): ResolvedBatchStrategy {
  if (typeof driver !== 'object' || driver === null || typeof driver.capabilities !== 'object') {
    throw new TypeError(`driver must be a cumem Driver, got ${describeValue(driver)}`);
  }
  if (!Object.hasOwn(batchVersion, operation)) {
    throw new TypeError(
      `operation must be one of ${Object.keys(batchVersion).join(', ')}, got ${describeValue(operation)}`,
    );
  }
  checkStrategy(requested);
  checkBoolean(requireBatch, 'requireBatch');
  if (!Array.isArray(table))
    throw new TypeError(`table must be an array of rules, got ${describeValue(table)}`);
  if (requireBatch && requested === 'loop') {
    throw new TypeError("requireBatch: true contradicts strategy: 'loop'");
  }
  const available = hasBatchEntryPoint(driver, operation);
  const needsBatch = requireBatch || requested === 'batch' || operation === 'discard';
  if (needsBatch && !available) {
    const why =
      operation === 'discard' ? 'discard has no single-range driver entry point; it' : `${operation} batch`;
    throw new NotSupportedError(
      `${why} needs a driver with ${batchVersion[operation]}; this driver is version ${driver.driverVersion}`,
    );
  }
  if (requested === 'batch' || requireBatch) return forcedBatch;
  // Discard's "loop" is the batch entry point with one range per call.
  if (requested === 'loop') return forcedLoop;
  // Both forms exist wherever the batch entry point does: then 'auto' learns.
  const measured = available;
  const version = driver.driverVersion;
  for (const rule of table) {
    if (rule.operation !== operation || version < rule.minDriverVersion || version >= rule.maxDriverVersion)
      continue;
    if (rule.kind !== 'loop' && !available) break;
    return { kind: rule.kind, chunkSize: rule.chunkSize, measured };
  }
  if (operation === 'discard') return { kind: 'batch', chunkSize: Number.POSITIVE_INFINITY, measured };
  // All ranges in one batch call when the learning picks the batch.
  return { kind: 'loop', chunkSize: Number.POSITIVE_INFINITY, measured };
}

const forcedBatch: ResolvedBatchStrategy = Object.freeze({
  kind: 'batch',
  chunkSize: Number.POSITIVE_INFINITY,
  measured: false,
});
const forcedLoop: ResolvedBatchStrategy = Object.freeze({ kind: 'loop', chunkSize: 1, measured: false });
