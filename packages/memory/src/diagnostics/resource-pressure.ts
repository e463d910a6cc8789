// The MemoryResource methods of statistics and limits, kept out of memory-resource.ts (the base
// class) so that it stays about memory. Also the process-wide count of buffers the finalizer
// had to free because the program never closed them.
import { checkSize, describeValue, NotSupportedError } from '@cumem/core-types';
import type { ResourceAccounting, ResourceStatistics } from './resource-accounting.js';

/** What statistics and limits read of a resource's live allocations (buffer/live-allocations.ts). */
interface AccountedAllocations {
  /** Statistics, limit and trackers; null while all are off. */
  readonly accounting: ResourceAccounting | null;
  /** The accounting, made on first use. */
  account(): ResourceAccounting;
}

export type { ResourceStatistics, StatisticsCounter } from './resource-accounting.js';

const zero = Object.freeze({ current: 0, peak: 0, total: 0 });
const disabled: ResourceStatistics = Object.freeze({
  enabled: false,
  bytes: zero,
  allocations: zero,
  failures: 0,
});

/** @internal `mr.statistics()`. */
export function statisticsOf(live: AccountedAllocations | null): ResourceStatistics {
  return live?.accounting?.snapshot() ?? disabled;
}

/**
 * @internal `mr.enableStatistics()` (bytes undefined) and `mr.limit = bytes`.
 * @throws TypeError / RangeError for a bad limit; NotSupportedError for a resource not built in.
 */
export function setLimit(
  resource: object,
  live: AccountedAllocations | null,
  bytes: number | null | undefined,
): void {
  if (bytes !== undefined && bytes !== null) {
    if (typeof bytes !== 'number')
      throw new TypeError(`limit must be a number of bytes or null, got ${describeValue(bytes)}`);
    checkSize(bytes, 'limit');
  }
  if (live === null) {
    throw new NotSupportedError(
      `${resource.constructor.name} is not a built-in memory resource: statistics and limits need one of cumem's resources`,
    );
  }
  const accounting = live.account();
  if (bytes !== undefined) accounting.limitBytes = bytes ?? Number.POSITIVE_INFINITY;
}

let finalizedCount = 0;
let finalizedBytes = 0;

/** @internal A buffer dropped without close() is being freed by the finalizer (or recovery). */
export function noteFinalizerRelease(bytes: number): void {
  finalizedCount++;
  finalizedBytes += bytes;
}

/** Buffers freed because the program dropped them without `close()`: how many, how many bytes. */
export function finalizerReleases(): { readonly count: number; readonly bytes: number } {
  return { count: finalizedCount, bytes: finalizedBytes };
}
