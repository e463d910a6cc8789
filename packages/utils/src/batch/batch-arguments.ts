// Validation shared by the batch operations. Everything here runs before the first driver
// call: a bad element anywhere in a 10 000-range batch leaves the driver untouched.
import {
  checkBoolean,
  checkOptions,
  checkSize,
  type Driver,
  describeValue,
  isLocation,
  type Location,
  locationToMemLocation,
  type MemLocation,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { type Buffer, bufferBrand } from '@cumem/memory';
import { BufferListCheck } from './batch-buffer-check.js';
import { type BatchStrategy, checkStrategy } from './batch-rule.js';

/** Options every batch operation takes. */
export interface BatchOptions {
  /** Fail with NotSupportedError instead of falling back to per-range calls when the driver has no batch entry point. Default false. */
  readonly requireBatch?: boolean;
  /**
   * How to reach the driver. Default `'auto'`: a fixed rule per operation, from the bench's
   * measurements: copies, discards and migrations to a device of two or more ranges as one
   * batch call, migrations to the host one call per range, and one call per range wherever the
   * driver has no batch entry point. `'batch'` / `'loop'` force a form.
   */
  readonly strategy?: BatchStrategy;
  /**
   * Merge neighbouring ranges of one allocation (one ends where the next starts, same target)
   * into one driver range; what counts as one allocation: `allocationOf`. Default true.
   */
  readonly coalesce?: boolean;
  /** Most ranges per batch call (default: all in one). */
  readonly chunkSize?: number;
}

/** Checked {@link BatchOptions}. */
export interface CheckedBatchOptions {
  readonly requireBatch: boolean;
  readonly strategy: BatchStrategy;
  readonly coalesce: boolean;
  readonly chunkSize: number | undefined;
}

export function checkBatchOptions(options: BatchOptions | undefined): CheckedBatchOptions {
  const { requireBatch = false, strategy, coalesce = true, chunkSize } = checkOptions(options);
  checkBoolean(requireBatch, 'requireBatch');
  checkBoolean(coalesce, 'coalesce');
  if (chunkSize !== undefined && checkSize(chunkSize, 'chunkSize') === 0) {
    throw new RangeError('chunkSize must be at least 1');
  }
  return { requireBatch, strategy: checkStrategy(strategy), coalesce, chunkSize };
}

/**
 * A copy of the array `value` (its length read once, each element once), or `value` itself
 * when it is no array: what a later check and the driver call see cannot change under them,
 * whatever a Proxy or an element getter would answer on a second read.
 */
export function readOnce(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const count = value.length;
  const copy = new Array<unknown>(count);
  for (let i = 0; i < count; i++) copy[i] = value[i];
  return copy;
}

/**
 * `value` when it is an array (its elements are checked by {@link BufferListCheck}).
 * @throws TypeError for a lone Buffer or another non-array.
 */
export function checkBufferArray(value: unknown, name: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) {
    const what = bufferBrand.has(value) ? 'a single Buffer' : describeValue(value);
    throw new TypeError(`${name} must be an array of Buffers, got ${what} (wrap one Buffer as [buffer])`);
  }
}

const listCheck = new BufferListCheck();

/**
 * An array of open Buffers (managed ones when `managed`) of `driver`, as a new array: each
 * element is read once, so what is checked is what the operation uses (a Proxy or an element
 * getter cannot answer differently later).
 * @param memories when given (empty), receives one buffer per distinct memory — its memory
 *   resource, or for external memory the buffer it slices (or itself) — in first-seen order:
 *   what depends on where the memory lives (device, pool, reachability) is then asked once per
 *   memory, not per buffer.
 * @throws TypeError for a lone Buffer or another non-array, a non-Buffer element, or a
 *   non-managed Buffer where managed memory is required; CudaStateError for a closed Buffer or
 *   one of another driver.
 */
export function checkBuffers(
  value: unknown,
  name: string,
  managed: boolean,
  driver: Driver,
  memories?: Buffer[],
): readonly Buffer[] {
  checkBufferArray(value, name);
  // Re-entered from a getter the checks run: the shared checker is in use.
  const check = listCheck.busy ? new BufferListCheck() : listCheck;
  check.begin(name, managed, driver, memories);
  try {
    const count = value.length;
    const list = new Array<Buffer>(count);
    for (let i = 0; i < count; i++) list[i] = check.check(value[i], i);
    check.recheck();
    return list;
  } finally {
    check.end();
  }
}

/** Distinct driver locations and, per buffer, the index of its location. */
export interface CheckedLocations {
  readonly distinct: MemLocation[];
  /** Index into `distinct` for buffer i; when `single`, every buffer uses index 0. */
  readonly indexOf: (i: number) => number;
}

/**
 * One Location for every buffer, or an array paired by index.
 * @throws TypeError for a non-Location; RangeError for a length mismatch; NotSupportedError for
 *   a NUMA host location on a driver without them.
 */
export function checkLocations(
  value: unknown,
  count: number,
  driver: Driver,
  name = 'locations',
): CheckedLocations {
  if (isLocation(value)) {
    const distinct = [memLocation(value, driver, name)];
    return { distinct, indexOf: () => 0 };
  }
  if (!Array.isArray(value)) {
    throw new TypeError(
      `${name} must be a Location (Device or Host) or an array of them, got ${describeValue(value)}`,
    );
  }
  if (value.length !== count) {
    throw new RangeError(`${name} has ${value.length} entries for ${count} buffers: pair them one to one`);
  }
  const distinct: MemLocation[] = [];
  const byLocation = new Map<Location, number>();
  const indices = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const location: unknown = value[i];
    if (!isLocation(location))
      throw new TypeError(`${name}[${i}] must be a Device or Host, got ${describeValue(location)}`);
    let index = byLocation.get(location);
    if (index === undefined) {
      index = distinct.length;
      distinct.push(memLocation(location, driver, `${name}[${i}]`));
      byLocation.set(location, index);
    }
    indices[i] = index;
  }
  return { distinct, indexOf: (i) => indices[i]! };
}

function memLocation(location: Location, driver: Driver, name: string): MemLocation {
  const memory = locationToMemLocation(location);
  const numa = memory.type === MemLocationType.HostNuma || memory.type === MemLocationType.HostNumaCurrent;
  if (numa && !driver.capabilities.hostNumaLocations) {
    throw new NotSupportedError(
      `${name}: NUMA host locations need a CUDA 13.0 driver with host NUMA support`,
    );
  }
  return memory;
}
