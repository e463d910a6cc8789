// Copies between a buffer and JS memory, and fills, ordered on a stream (pointer-to-pointer
// copies are copy/pointer-copy.ts). Without a stream the work goes to the device's default
// stream and the call waits for it; with one, the call only queues the work and any JS memory it
// touches is held until the stream has passed it.
import { type Driver, type DriverHandle, describeValue, viewByteLength } from '@cumem/core-types';
import { isRegisteredHostMemory } from '../copy/host-registration.js';
import { registeredCover, releaseDetachedRegistrations } from '../copy/host-registration-table.js';
import { finish } from '../copy/pointer-copy.js';
import { stagingSettings } from '../copy/staging-settings.js';
import { inStreamOrderOn } from '../stream/device-stream-order.js';
import { runtimeDefaultStream, type Stream } from '../stream/stream.js';
import type { BufferState } from './buffer-state.js';
import { isBufferHostView } from './host-views.js';

// cuMemcpyHtoDAsync / cuMemcpyDtoHAsync refuse memory from a host memory pool
// (cuMemPoolCreate with a host location) with CUDA_ERROR_INVALID_VALUE on CUDA 13.0, so only plain device memory takes them. Everything else (pinned, managed, external
// host memory) goes through cuMemcpyAsync with the JS memory's address: unified addressing
// accepts pageable memory there, and the driver picks the copy direction from the pointers.
/**
 * Queues one copy between JS memory `view` and `pointer` on the stream `handle`: to the device
 * when `upload`. `deviceOnly`: `pointer` is plain device memory. Every direct host copy of cumem
 * (Buffer.copyFrom/copyTo, the range engine) is this call.
 */
export function directHostCopy(
  driver: Driver,
  upload: boolean,
  deviceOnly: boolean,
  pointer: bigint,
  view: ArrayBufferView,
  handle: DriverHandle,
): void {
  if (deviceOnly) {
    if (upload) driver.memcpyHtoDAsync(pointer, view, handle);
    else driver.memcpyDtoHAsync(view, pointer, handle);
    return;
  }
  // An address and a length leave JS here: the length is the view's own (its internal slot), not
  // what a replaced byteLength getter answers.
  const bytes = viewByteLength(view);
  if (upload) driver.memcpyAsync(pointer, driver.addressOf(view), bytes, handle);
  else driver.memcpyAsync(driver.addressOf(view), pointer, bytes, handle);
}

/** The driver's staged copy (pinned chunks on native threads) between pageable `view` and device `pointer`. */
export function stagedHostCopy(
  driver: Driver,
  upload: boolean,
  pointer: bigint,
  view: ArrayBufferView,
  handle: DriverHandle,
): void {
  if (upload) driver.stagedCopyHtoD(pointer, view, handle, stagingSettings());
  else driver.stagedCopyDtoH(view, pointer, handle, stagingSettings());
}

// Large copies between plain device memory and pageable JS memory go through the driver's staged
// copy (pinned chunks on native threads), which is faster than the driver's own pageable path
// and complete when it returns, so there is nothing to hold. Registered memory already copies
// at pinned speed and keeps the ordinary, stream-ordered path. Small copies pay one compare.
// This is the one answer to "is this JS memory pageable?" for every copy of cumem: memory a
// Buffer handed out as a host view (pinned, managed: interop-arrow's HostBuffer is one) and
// registered memory are not.
/** True when `view` is ordinary pageable JS memory: neither a Buffer's host view nor registered. */
export function isPageable(view: ArrayBufferView): boolean {
  return !isBufferHostView(view) && !isRegisteredHostMemory(view);
}

/**
 * True when a copy between `bytes` and plain device memory (`deviceOnly`) takes the driver's
 * staged copy. `bytes` is a plain view (asView, viewBytes), and registrations of detached
 * buffers were released (host-registration-table.ts).
 */
export function staged(
  bytes: Uint8Array,
  deviceOnly: boolean,
  minBytes = stagingSettings().minBytes,
): boolean {
  const registered = registeredCover(bytes);
  // A view only partly inside a registration is no one range the driver can copy: it is staged.
  if (registered === 'part') return true;
  return deviceOnly && registered === 'none' && viewByteLength(bytes) >= minBytes && !isBufferHostView(bytes);
}

/**
 * Copies between `buffer` and all of `view` (a plain view, as asView makes it, of the buffer's
 * size): into the buffer when `upload`, out of it otherwise. Without `stream` the copy goes to
 * the buffer's device's default stream and the call waits; with one it is queued there. One
 * range of the range engine's rule (range-copy-engine.ts moves many).
 */
export function copyBufferHost(
  buffer: BufferState,
  upload: boolean,
  view: Uint8Array,
  stream: Stream | undefined,
): void {
  const { runtime, pointer } = buffer;
  const deviceOnly = buffer.isDeviceOnly;
  const ordinal = buffer.workDevice(null);
  if (viewByteLength(view) === 0) return;
  // Never copy through the registration of a buffer detached since (host-registration-table.ts).
  releaseDetachedRegistrations();
  if (deviceOnly && stream !== undefined && stream.ordinal !== ordinal) {
    // Device memory of another device than the stream's: queued on its own device, in stream order.
    inStreamOrderOn(runtime, stream, ordinal, (own) => copyBufferHost(buffer, upload, view, own));
    return;
  }
  const target = stream ?? runtimeDefaultStream(runtime, ordinal);
  runtime.makeCurrent(target.ordinal);
  if (staged(view, deviceOnly)) {
    stagedHostCopy(runtime.driver, upload, pointer, view, target.streamHandle);
    return;
  }
  directHostCopy(runtime.driver, upload, deviceOnly, pointer, view, target.streamHandle);
  finish(runtime, target, stream === undefined, view);
}

/** A fill pattern: `width` bytes (1, 2 or 4) repeating `value` (read little-endian from the pattern's bytes). */
export interface FillPattern {
  readonly width: 1 | 2 | 4;
  readonly value: number;
}

/**
 * The pattern of a `fill()` value, checked against a buffer of `size` bytes at `pointer`.
 * @throws TypeError for a non-integer or non-view; RangeError for a byte outside 0..255, a
 *   pattern not 1, 2 or 4 bytes long, or a size (or address) not a multiple of the pattern.
 */
export function fillPattern(value: unknown, size: number, pointer: bigint): FillPattern {
  if (typeof value === 'number') {
    if (!Number.isInteger(value))
      throw new TypeError(
        `fill value must be an integer 0..255 or a 1-, 2- or 4-byte view, got ${describeValue(value)}`,
      );
    if (value < 0 || value > 255) throw new RangeError(`fill value must be in 0..255, got ${value}`);
    return { width: 1, value };
  }
  if (!ArrayBuffer.isView(value)) {
    throw new TypeError(
      `fill value must be an integer 0..255 or a 1-, 2- or 4-byte view, got ${describeValue(value)}`,
    );
  }
  const width = viewByteLength(value);
  if (width !== 1 && width !== 2 && width !== 4) {
    throw new RangeError(`fill pattern must be 1, 2 or 4 bytes long, got ${width}`);
  }
  if (size % width !== 0)
    throw new RangeError(`buffer size ${size} is not a multiple of the ${width}-byte fill pattern`);
  if (pointer % BigInt(width) !== 0n) {
    throw new RangeError(
      `a ${width}-byte fill needs an address aligned to ${width} bytes, got 0x${pointer.toString(16)}`,
    );
  }
  const bytes = new DataView(value.buffer, value.byteOffset, width);
  const pattern =
    width === 1 ? bytes.getUint8(0) : width === 2 ? bytes.getUint16(0, true) : bytes.getUint32(0, true);
  return { width, value: pattern };
}

/** Fills all of `buffer` with `pattern`, on `stream` or (waiting for it) the device's default stream. */
export function fillBuffer(buffer: BufferState, pattern: FillPattern, stream: Stream | undefined): void {
  const { runtime, pointer, size } = buffer;
  const ordinal = buffer.workDevice(null);
  const deviceOnly = buffer.isDeviceOnly;
  if (size === 0) return;
  if (deviceOnly && stream !== undefined && stream.ordinal !== ordinal) {
    inStreamOrderOn(runtime, stream, ordinal, (own) => fillBuffer(buffer, pattern, own));
    return;
  }
  const target = stream ?? runtimeDefaultStream(runtime, ordinal);
  runtime.makeCurrent(target.ordinal);
  const driver = runtime.driver;
  if (pattern.width === 1) driver.memsetD8Async(pointer, pattern.value, size, target.streamHandle);
  else if (pattern.width === 2) driver.memsetD16Async(pointer, pattern.value, size / 2, target.streamHandle);
  else driver.memsetD32Async(pointer, pattern.value, size / 4, target.streamHandle);
  finish(runtime, target, stream === undefined);
}
