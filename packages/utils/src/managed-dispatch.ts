// The one implementation behind prefetch / discard / discardPrefetch (managed-operations.ts),
// the *Batch names (managed-batch.ts) and, per range, ManagedBuffer's methods (the per-range
// calls of @cumem/memory's managed-range.ts): every argument checked before the first driver
// call, then one range to the per-range call, several to the batch machinery.
import { checkOptions, type Driver, describeValue } from '@cumem/core-types';
import { type Buffer, bufferBrand, currentDriver, defaultStream, type Stream } from '@cumem/memory';
import {
  bufferByteSize,
  bufferDeviceId,
  bufferPointer,
  checkDiscardSupported,
  discardPrefetchRange,
  discardRange,
  driverOf,
  prefetchRange,
} from '@cumem/memory/internal';
import { checkBatchOptions, checkBuffers, checkLocations } from './batch-arguments.js';
import { chooseBatchStrategy } from './batch-strategy.js';
import { issueManaged, type ManagedOperation, type Targets } from './managed-issue.js';
import type { ManagedOperationOptions } from './managed-operations.js';
import { checkStream, driverFor } from './stream-binding.js';

const noTargets: Targets = { distinct: [], indexOf: () => 0 };

/**
 * `targets` as an array (a lone Buffer becomes `[buffer]` in `'dispatch'` mode; the `*Batch`
 * names take arrays only, and checkBuffers says so). Each element is checked by checkBuffers
 * next, with memory's brand: a buffer-shaped object could claim any address and size, and
 * discard would then drop another allocation's contents.
 * @throws TypeError for anything else in `'dispatch'` mode.
 */
export function targetList(targets: unknown, mode: 'dispatch' | 'batch'): unknown {
  if (Array.isArray(targets) || mode === 'batch') return targets;
  if (bufferBrand.has(targets)) return [targets];
  throw new TypeError(`targets must be a ManagedBuffer or an array of them, got ${describeValue(targets)}`);
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
  const { stream, ...rest } = checkOptions(options);
  const given = mode === 'batch' || stream !== undefined ? checkStream(stream) : undefined;
  const candidates = targetList(targets, mode);
  const driver = given !== undefined ? driverOf(given) : driverOfTargets(candidates);
  const list = checkBuffers(candidates, 'targets', true, driver);
  const checkedOptions = checkBatchOptions(rest);
  const checkedTargets = operation === 'discard' ? noTargets : checkLocations(locations, list.length, driver);
  const perRange =
    mode === 'dispatch' &&
    list.length === 1 &&
    !checkedOptions.requireBatch &&
    checkedOptions.strategy !== 'batch';
  if (perRange) {
    if (operation === 'discard') checkDiscardSupported(driver, 'discard');
  } else {
    const strategy = chooseBatchStrategy(
      driver,
      operation,
      checkedOptions.strategy,
      checkedOptions.requireBatch,
    );
    if (list.length === 0) return;
    const target = given ?? defaultStreamFor(list[0]!);
    issueManaged(operation, target, list, checkedTargets, checkedOptions, strategy);
    if (given === undefined) target.sync();
    return;
  }
  const buffer = list[0]!;
  const target = given ?? defaultStreamFor(buffer);
  const size = bufferByteSize(buffer);
  if (size !== 0) {
    const bound = driverFor(target);
    const location = checkedTargets.distinct[0]!;
    const pointer = bufferPointer(buffer);
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
export function driverOfTargets(list: unknown): Driver {
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  return bufferBrand.has(first) ? driverOf(first) : currentDriver();
}

/** The default stream of the buffer's device (the current device for host-resident memory). */
export function defaultStreamFor(buffer: Buffer): Stream {
  const device = bufferDeviceId(buffer);
  return defaultStream(device >= 0 ? device : undefined);
}
