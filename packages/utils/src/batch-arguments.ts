// Validation shared by the batch operations. Everything here runs before the first driver
// call: a bad element anywhere in a 10 000-range batch leaves the driver untouched.
import {
  CudaStateError,
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
import { driverOf } from '@cumem/memory/internal';
import { type BatchStrategy, checkStrategy } from './batch-strategy.js';

/** Options every batch operation takes. */
export interface BatchOptions {
  /** Fail with NotSupportedError instead of falling back to per-range calls when the driver has no batch entry point. Default false. */
  readonly requireBatch?: boolean;
  /**
   * How to reach the driver. Default `'auto'`: per size class and direction, the form (batch
   * call or loop) timed faster on this device in the class's first calls, timed again now and
   * then (`learnedBatchStrategies`); `BATCH_STRATEGY_TABLE` where events cannot time.
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
 * An array of open Buffers (managed ones when `managed`).
 * @param memories when given, receives one buffer per distinct memory — its memory resource,
 *   or the buffer itself for external memory — in first-seen order: what depends on where the
 *   memory lives (device, pool, reachability) is then asked once per memory, not per buffer.
 * @throws TypeError for a lone Buffer or another non-array, a non-Buffer element, or a
 *   non-managed Buffer where managed memory is required; CudaStateError for a closed Buffer.
 */
export function checkBuffers(
  value: unknown,
  name: string,
  managed: boolean,
  driver: Driver,
  memories?: Buffer[],
): readonly Buffer[] {
  if (!Array.isArray(value)) {
    const what = bufferBrand.has(value) ? 'a single Buffer' : describeValue(value);
    throw new TypeError(`${name} must be an array of Buffers, got ${what} (wrap one Buffer as [buffer])`);
  }
  let previous: unknown;
  let lastMemory: unknown;
  let seen: Set<unknown> | undefined;
  for (let i = 0; i < value.length; i++) {
    const buffer: unknown = value[i];
    // A buffer repeated next to itself was checked just now (nothing can close it meanwhile).
    if (buffer === previous) continue;
    // Only a real Buffer (memory's brand: one private-field test per element): an object shaped
    // like one, inheriting from one or a Proxy of one would name memory the caller never owned.
    // The element's name is built only for the error: a string per element costs more than
    // every check here together.
    if (!bufferBrand.has(buffer)) bufferBrand.check(buffer, `${name}[${i}]`);
    const checked = buffer as Buffer;
    if (checked.isClosed) throw CudaStateError.closed(`Buffer (${name}[${i}])`);
    if (managed && !checked.isManaged) {
      throw new TypeError(`${name}[${i}] is not managed memory: this operation needs ManagedBuffers`);
    }
    // The work goes to the stream's driver: a buffer of another driver is not its memory.
    if (driverOf(checked) !== driver) {
      throw new CudaStateError(
        `${name}[${i}] belongs to driver ${driverOf(checked).name}, the stream to ${driver.name}`,
      );
    }
    previous = buffer;
    if (memories !== undefined) {
      const memory = checked.memoryResource ?? checked;
      if (memory !== lastMemory) {
        lastMemory = memory;
        if (memories.length === 0) memories.push(checked);
        else {
          // A set only from the second memory on: one resource (the common case) allocates none.
          seen ??= new Set(memories.map((known) => known.memoryResource ?? known));
          if (!seen.has(memory)) {
            seen.add(memory);
            memories.push(checked);
          }
        }
      }
    }
  }
  return value as Buffer[];
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
