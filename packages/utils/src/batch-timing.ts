// Times batch operations on the device, for the learned choice of batch-learning.ts. The work
// is migration- or copy-bound on the GPU, so what counts is the stream's time, not the time
// the JS call took: a timed call is bracketed with two events recorded on its stream, and the
// elapsed time is read on a later call of the same size class once the end event has completed
// (cuEventQuery). Nothing waits: no synchronization is added, and the caller's stream never
// blocks on a measurement. A sample is the larger of that device time and the time the JS call
// took to issue the part: should a driver do part of the work in the call itself (before the
// stream sees it), the device time alone would miss it. Once a class has chosen, its calls record no event until the choice
// is timed again. Any event failure (no timing on this driver, a lost context) ends the
// measuring for that driver and device: calls then take the fallback form.
import { type Driver, type DriverHandle, EventFlags } from '@cumem/core-types';
import type { Stream } from '@cumem/memory';
import { driverOf } from '@cumem/memory/internal';
import { type BatchForm, FormLearner, learningSettings } from './batch-learning.js';
import type { BatchOperation } from './batch-strategy.js';

/** Where a part of a batch moves memory: 0 none in particular (copies, discards), 1 to a device, 2 to the host. */
export type BatchDirection = 0 | 1 | 2;

/** One part of a batch operation, as issued: the form to use, and the end of its timing. */
export interface MeasuredBatch {
  /** Issue the part as one batch call (or chunks) or as one call per range. */
  readonly kind: BatchForm;
  /** Call after the part's last driver call: records the end of its timing, if timed. */
  end(): void;
}

interface Pending {
  readonly form: BatchForm;
  readonly start: DriverHandle;
  readonly end: DriverHandle;
  /** Milliseconds the part took to issue. */
  readonly hostMs: number;
}

interface SizeClass {
  readonly learner: FormLearner;
  readonly pending: Pending[];
  /** The start event of a timed part whose end() never came (its driver call threw), or 0n. */
  open: DriverHandle;
}

interface DeviceLearning {
  failed: boolean;
  readonly classes: Map<number, SizeClass>;
}

const operations: readonly BatchOperation[] = ['prefetch', 'discard', 'discardPrefetch', 'copy'];
const untimed: Record<BatchForm, MeasuredBatch> = {
  batch: Object.freeze({ kind: 'batch', end: () => undefined }),
  loop: Object.freeze({ kind: 'loop', end: () => undefined }),
};
const learning = new WeakMap<Driver, Map<number, DeviceLearning>>();

/** Bits of a non-negative safe integer (0 for 0). */
function bitLength(value: number): number {
  return value < 2 ** 32 ? 32 - Math.clz32(value) : 32 + bitLength(Math.floor(value / 2 ** 32));
}

/**
 * The size class of a part: operation, direction, ranges by powers of two, average bytes per
 * range by powers of four (so 1024 x 64 KiB and 1024 x 100 KiB share a class, 1024 x 4 KiB not).
 */
export function sizeClassKey(
  operation: BatchOperation,
  direction: BatchDirection,
  ranges: number,
  bytes: number,
): number {
  const rangeBits = bitLength(ranges);
  const byteBits = bitLength(Math.floor(bytes / Math.max(ranges, 1))) >> 1;
  return ((operations.indexOf(operation) * 4 + direction) * 64 + rangeBits) * 64 + byteBits;
}

function deviceLearning(driver: Driver, ordinal: number): DeviceLearning {
  let devices = learning.get(driver);
  if (devices === undefined) {
    devices = new Map();
    learning.set(driver, devices);
  }
  let device = devices.get(ordinal);
  if (device === undefined) {
    device = { failed: false, classes: new Map() };
    devices.set(ordinal, device);
  }
  return device;
}

/**
 * Starts one part of a batch operation on `stream` (`driver`: the stream's, its context
 * current). Untimed — the returned form is `fallback` — unless `measured`; when measured, the
 * form is the one learned for the part's size class, or the one to time next.
 * @param ranges driver ranges of the part (after coalescing), at least 1.
 * @param bytes bytes of the part in all.
 */
export function beginMeasuredBatch(
  driver: Driver,
  stream: Stream,
  operation: BatchOperation,
  direction: BatchDirection,
  ranges: number,
  bytes: number,
  measured: boolean,
  fallback: BatchForm,
): MeasuredBatch {
  if (!measured) return untimed[fallback];
  const device = deviceLearning(driver, stream.device.ordinal);
  if (device.failed) return untimed[fallback];
  const key = sizeClassKey(operation, direction, ranges, bytes);
  let sizeClass = device.classes.get(key);
  if (sizeClass === undefined) {
    sizeClass = { learner: new FormLearner(), pending: [], open: 0n };
    device.classes.set(key, sizeClass);
  }
  const { learner } = sizeClass;
  try {
    collect(driver, sizeClass);
    const form = learner.plan();
    if (form === undefined) return untimed[learner.decided ?? fallback];
    const start = driver.eventCreate(EventFlags.Default);
    sizeClass.open = start;
    driver.eventRecord(start, stream.handle);
    const handle = stream.handle;
    const timed = sizeClass;
    const issuedAt = learningSettings.now();
    return {
      kind: form,
      end() {
        timed.open = 0n;
        const hostMs = learningSettings.now() - issuedAt;
        let end: DriverHandle = 0n;
        try {
          end = driver.eventCreate(EventFlags.Default);
          driver.eventRecord(end, handle);
        } catch {
          release(driver, [start, end]);
          fail(driver, device);
          return;
        }
        learner.issued(form);
        timed.pending.push({ form, start, end, hostMs });
      },
    };
  } catch {
    fail(driver, device);
    return untimed[learner.decided ?? fallback];
  }
}

/** Reads the times of the class's completed measurements, oldest first; never waits. */
function collect(driver: Driver, sizeClass: SizeClass): void {
  if (sizeClass.open !== 0n) {
    const open = sizeClass.open;
    sizeClass.open = 0n;
    release(driver, [open]);
  }
  const { pending, learner } = sizeClass;
  while (pending.length > 0) {
    const oldest = pending[0]!;
    if (!driver.eventQuery(oldest.end)) return;
    pending.shift();
    let device = Number.NaN;
    try {
      device = driver.eventElapsedTime(oldest.start, oldest.end);
    } finally {
      release(driver, [oldest.start, oldest.end]);
      // A time no device gives (negative, NaN, infinite) ends the measuring like a failure.
      if (device >= 0 && device < Number.POSITIVE_INFINITY) {
        learner.record(oldest.form, Math.max(device, oldest.hostMs));
      } else learner.drop(oldest.form);
    }
    if (!(device >= 0 && device < Number.POSITIVE_INFINITY)) throw new RangeError(`event time ${device} ms`);
  }
}

/** Ends the measuring for the device after an event failure, destroying the events held. */
function fail(driver: Driver, device: DeviceLearning): void {
  device.failed = true;
  for (const sizeClass of device.classes.values()) {
    release(driver, [sizeClass.open, ...sizeClass.pending.flatMap((p) => [p.start, p.end])]);
    for (const p of sizeClass.pending) sizeClass.learner.drop(p.form);
    sizeClass.pending.length = 0;
    sizeClass.open = 0n;
  }
}

function release(driver: Driver, events: readonly DriverHandle[]): void {
  for (const event of events) {
    if (event === 0n) continue;
    try {
      driver.eventDestroy(event);
    } catch {
      // Nothing to do: a handle the driver no longer knows holds nothing.
    }
  }
}

/** What the learning knows of one size class (see {@link learnedBatchStrategies}). */
export interface LearnedBatchStrategy {
  /** The batch operation. */
  readonly operation: BatchOperation;
  /** `'toDevice'` / `'toHost'` for the parts of prefetches by target, else `'any'`. */
  readonly direction: 'any' | 'toDevice' | 'toHost';
  /** Driver ranges per part (after coalescing): from `ranges[0]` to `ranges[1]`, inclusive. */
  readonly ranges: readonly [number, number];
  /** Average bytes per range: from `bytesPerRange[0]` up to, not including, `bytesPerRange[1]`. */
  readonly bytesPerRange: readonly [number, number];
  /** The faster form as measured, or undefined while it is first being timed. */
  readonly kind: BatchForm | undefined;
  /** Median measured time of the part as one batch call (or chunks), in milliseconds; NaN until measured. */
  readonly batchMs: number;
  /** Median measured time of the part as one call per range, in milliseconds; NaN until measured. */
  readonly loopMs: number;
}

/**
 * What `strategy: 'auto'` has learned for work on `stream`'s device and driver: per size class,
 * the faster form and the device times it was chosen from. Empty before any measured call, and
 * when measuring failed there (events without timing): then `'auto'` follows
 * `BATCH_STRATEGY_TABLE`. No driver call.
 * @throws TypeError for anything but a Stream.
 */
export function learnedBatchStrategies(stream: Stream): LearnedBatchStrategy[] {
  const device = learning.get(driverOf(stream))?.get(stream.device.ordinal);
  if (device === undefined || device.failed) return [];
  const directions = ['any', 'toDevice', 'toHost'] as const;
  return [...device.classes].map(([key, { learner }]) => {
    const rangeBits = Math.floor(key / 64) % 64;
    const byteClass = key % 64;
    return {
      operation: operations[Math.floor(key / (64 * 64 * 4))]!,
      direction: directions[Math.floor(key / (64 * 64)) % 4] ?? 'any',
      ranges: [rangeBits === 0 ? 0 : 2 ** (rangeBits - 1), 2 ** rangeBits - 1] as const,
      // Classes of two bits: bit lengths 2c and 2c + 1, so from 2^(2c-1) (0 for c = 0) below 2^(2c+1).
      bytesPerRange: [byteClass === 0 ? 0 : 2 ** (2 * byteClass - 1), 2 ** (2 * byteClass + 1)] as const,
      kind: learner.decided,
      batchMs: learner.median.batch,
      loopMs: learner.median.loop,
    };
  });
}
