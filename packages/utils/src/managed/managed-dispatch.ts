// The one implementation behind prefetch / discard / discardPrefetch (managed-operations.ts),
// the *Batch names (managed-batch.ts) and, per range, ManagedBuffer's methods (the per-range
// calls of @cumem/memory's managed-range.ts). Every argument is read once, into locals, before
// any check; the buffers are checked last, right before the driver, so no getter run by a check
// (a location's, an option's) can close a buffer after it was found open. Then one range goes to
// the per-range call, several to the batch machinery.
import { checkOptions, type Driver, describeValue } from '@cumem/core-types';
import { type Buffer, bufferBrand, currentDriver, defaultStream, type Stream } from '@cumem/memory';
import { bufferState, driverOf, managedRanges } from '@cumem/memory/internal';
import {
  checkBatchOptions,
  checkBufferArray,
  checkBuffers,
  checkLocations,
  readOnce,
} from '../batch/batch-arguments.js';
import { planBatch } from '../batch/batch-rule.js';
import { checkStream, driverFor } from '../stream-binding.js';
import { issueManaged, type ManagedOperation, type Targets } from './managed-issue.js';
import type { ManagedOperationOptions } from './managed-operations.js';

const { checkDiscardSupported, discardPrefetchRange, discardRange, prefetchRange } = managedRanges;

const noTargets: Targets = { distinct: [], indexOf: () => 0 };

/**
 * `targets` read once into an array of this call's own (a lone Buffer becomes `[buffer]` in
 * `'dispatch'` mode; the `*Batch` names take arrays only). Its elements are checked later by
 * checkBuffers, with memory's brand: a buffer-shaped object could claim any address and size,
 * and discard would then drop another allocation's contents.
 * @throws TypeError for anything but an array (or, in `'dispatch'` mode, a Buffer).
 */
export function targetList(targets: unknown, mode: 'dispatch' | 'batch'): readonly unknown[] {
  if (Array.isArray(targets)) return readOnce(targets) as unknown[];
  if (mode === 'dispatch') {
    if (bufferBrand.has(targets)) return [targets];
    throw new TypeError(`targets must be a ManagedBuffer or an array of them, got ${describeValue(targets)}`);
  }
  checkBufferArray(targets, 'targets');
  return targets;
}

/**
 * The one implementation of prefetch / discard / discardPrefetch. `'dispatch'`: one buffer takes
 * the per-range call (unless `strategy` / `requireBatch` ask for the batch call), several the
 * batch machinery. `'batch'` (the `*Batch` names): the batch machinery for any count.
 */
export function runManagedOperation(
  operation: ManagedOperation,
  targets: unknown,
  locations: unknown,
  options: ManagedOperationOptions | undefined,
  mode: 'dispatch' | 'batch',
): void {
  // Read: every argument once.
  const { stream, ...rest } = checkOptions(options);
  const candidates = targetList(targets, mode);
  const locationValues = operation === 'discard' ? undefined : readOnce(locations);
  // Check: the stream, the options and the locations, then the buffers, last.
  const given = mode === 'batch' || stream !== undefined ? checkStream(stream) : undefined;
  const checkedOptions = checkBatchOptions(rest);
  const driver = given !== undefined ? driverOf(given) : driverOfTargets(candidates);
  const checkedTargets =
    operation === 'discard' ? noTargets : checkLocations(locationValues, candidates.length, driver);
  const list = checkBuffers(candidates, 'targets', true, driver);
  const perRange =
    mode === 'dispatch' &&
    list.length === 1 &&
    !checkedOptions.requireBatch &&
    checkedOptions.strategy !== 'batch';
  if (perRange) {
    if (operation === 'discard') checkDiscardSupported(driver, 'discard');
  } else {
    const plan = planBatch(driver, operation, checkedOptions.strategy, checkedOptions.requireBatch);
    if (list.length === 0) return;
    const target = given ?? defaultStreamFor(list[0]!);
    issueManaged(operation, target, list, checkedTargets, checkedOptions, plan);
    if (given === undefined) target.sync();
    return;
  }
  const buffer = list[0]!;
  const target = given ?? defaultStreamFor(buffer);
  const size = bufferState(buffer).size;
  if (size !== 0) {
    const bound = driverFor(target);
    const location = checkedTargets.distinct[0]!;
    const pointer = bufferState(buffer).pointer;
    if (operation === 'prefetch') prefetchRange(bound, pointer, size, location, target.handle);
    else if (operation === 'discard') discardRange(bound, pointer, size, target.handle);
    else discardPrefetchRange(bound, pointer, size, location, target.handle);
  }
  if (given === undefined) target.sync();
}

/**
 * The driver the work goes to without a stream: the first buffer's (every other must share it,
 * as checkBuffers checks), else the one in use.
 */
export function driverOfTargets(list: readonly unknown[]): Driver {
  const first = list[0];
  return bufferBrand.has(first) ? driverOf(first) : currentDriver();
}

/** The default stream of the buffer's device (the current device for host-resident memory). */
export function defaultStreamFor(buffer: Buffer): Stream {
  const device = bufferState(buffer).deviceId;
  return defaultStream(device >= 0 ? device : undefined);
}
