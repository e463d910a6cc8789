// One upload / download API for many ranges between JS memory and one Buffer (what Arrow tables
// and other gathered layouts need): every argument is checked before the first driver call,
// then range-copy-engine.ts issues the calls.
import { CudaStateError, checkOptions, describeValue, viewByteLength, viewBytes } from '@cumem/core-types';
import type { Buffer } from '../buffer/buffer.js';
import { bufferBrand, bufferState } from '../buffer/buffer-base.js';
import { checkSameDriver } from '../runtime/driver-runtime.js';
import { inStreamOrderOn } from '../stream/device-stream-order.js';
import { runtimeDefaultStream, type Stream } from '../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../stream/stream-options.js';
import { releaseDetachedRegistrations } from './host-registration-table.js';
import { finish } from './pointer-copy.js';
import { type HostRange, type HostStaging, moveRanges } from './range-copy-engine.js';

export type { HostRange, HostStaging, HostStagingBuffer } from './range-copy-engine.js';

/** Options of {@link copyRangesFromHost} and {@link copyRangesToHost}. */
export interface HostRangesOptions extends StreamOrderOptions {
  /** How pageable ranges move; see {@link HostStaging}. Default `'auto'`. */
  readonly staging?: HostStaging;
}

function checkRanges(ranges: unknown, size: number): readonly HostRange[] {
  if (!Array.isArray(ranges)) throw new TypeError(`ranges must be an array, got ${describeValue(ranges)}`);
  const checked: HostRange[] = [];
  const count = ranges.length;
  for (let i = 0; i < count; i++) {
    const range: unknown = ranges[i];
    if (typeof range !== 'object' || range === null)
      throw new TypeError(`ranges[${i}] must be { offset, bytes }, got ${describeValue(range)}`);
    const { offset, bytes: given } = range as Partial<HostRange>;
    if (!Number.isSafeInteger(offset) || (offset as number) < 0)
      throw new RangeError(
        `ranges[${i}].offset must be a non-negative integer, got ${describeValue(offset)}`,
      );
    if (!ArrayBuffer.isView(given))
      throw new TypeError(`ranges[${i}].bytes must be an ArrayBufferView, got ${describeValue(given)}`);
    // Read once, as the engine counts it: the engine copies exactly the bytes checked here.
    const bytes = viewBytes(given);
    if ((offset as number) + viewByteLength(bytes) > size) {
      throw new RangeError(
        `ranges[${i}] (${viewByteLength(bytes)} bytes at offset ${offset}) is past the end of the ${size}-byte buffer`,
      );
    }
    checked.push({ offset: offset as number, bytes });
  }
  return checked;
}

function checkStaging(staging: unknown, buffer: Buffer): HostStaging {
  if (staging === 'auto' || staging === 'pinned' || staging === 'pageable') return staging;
  if (bufferBrand.has(staging)) {
    const given = staging as Buffer;
    bufferState(given).checkOpen();
    if (bufferState(given).runtime !== bufferState(buffer).runtime)
      throw new CudaStateError('the staging buffer belongs to another driver than the buffer');
    if (!bufferState(given).isHostAccessible)
      throw new TypeError('the staging buffer must be host-accessible (pinned)');
    return given;
  }
  throw new TypeError(
    `staging must be 'auto', 'pinned', 'pageable' or a host-accessible Buffer, got ${describeValue(staging)}`,
  );
}

/**
 * The stream {@link copyRangesFromHost} / {@link copyRangesToHost} order a buffer's copies on when
 * given none: the default stream of the device the buffer's memory works on. Copies queued on it
 * beforehand (queued-upload.ts, queued-download.ts) are therefore waited for by such a call.
 */
export function rangeCopyStream(buffer: Buffer): Stream {
  return runtimeDefaultStream(bufferState(buffer).runtime, bufferState(buffer).workDevice(null));
}

function run(
  buffer: unknown,
  ranges: unknown,
  options: HostRangesOptions | undefined,
  upload: boolean,
): void {
  if (!bufferBrand.has(buffer))
    throw new TypeError(`${upload ? 'dst' : 'src'} must be a Buffer, got ${describeValue(buffer)}`);
  const target = buffer as Buffer;
  const stream = streamOption(options);
  const { staging = 'auto' } = checkOptions(options);
  if (stream !== undefined)
    checkSameDriver(bufferState(target).runtime, stream.runtime, 'the stream', 'the buffer');
  const checked = checkRanges(ranges, bufferState(target).size);
  const how = checkStaging(staging, target);
  bufferState(target).checkOpen();
  if (checked.length === 0) return;
  // Never copy through the registration of a buffer detached since (host-registration-table.ts).
  releaseDetachedRegistrations();
  const runtime = bufferState(target).runtime;
  const ordinal = bufferState(target).workDevice(null);
  const deviceOnly = bufferState(target).isDeviceOnly;
  const pointer = bufferState(target).pointer;
  const go = (on: Stream, given: boolean): void => {
    runtime.makeCurrent(on.ordinal);
    const held = moveRanges(runtime, pointer, deviceOnly, checked, on, upload, how);
    if (!given) runtime.driver.streamSynchronize(on.streamHandle);
    else for (const view of held) finish(runtime, on, false, view);
  };
  if (deviceOnly && stream !== undefined && stream.ordinal !== ordinal) {
    // Device memory of another device than the stream's: queued on its own device, in stream order.
    inStreamOrderOn(runtime, stream, ordinal, (own) => go(own, true));
    return;
  }
  go(stream ?? rangeCopyStream(target), stream !== undefined);
}

/**
 * Copies every range's JS memory into `dst` at the range's offset, with the fewest driver calls:
 * page-locked ranges (a Buffer's host view, registered memory) straight from where they are,
 * pageable ones as {@link HostStaging} says, and no events. Ranges must not overlap in `dst`.
 * Without `stream`, returns when every byte is in place; with it, returns once the copies are
 * queued, and the stream holds the JS memory until it has passed it (a staging Buffer is the
 * caller's to keep unchanged until then).
 * @throws TypeError for a non-Buffer, a range without a view, a bad staging; RangeError for a
 *   range past the end; CudaStateError for a closed buffer or stream — all before any driver call.
 */
export function copyRangesFromHost(
  dst: Buffer,
  ranges: readonly HostRange[],
  options?: HostRangesOptions,
): void {
  run(dst, ranges, options, true);
}

/**
 * Copies the bytes of `src` at each range's offset into the range's JS memory (the whole view),
 * as {@link copyRangesFromHost} in the other direction. Ranges may overlap in `src`.
 * @throws as {@link copyRangesFromHost}.
 */
export function copyRangesToHost(
  src: Buffer,
  ranges: readonly HostRange[],
  options?: HostRangesOptions,
): void {
  run(src, ranges, options, false);
}
