// Copies and fills. JS memory goes to the driver in place: koffi passes a typed array's address.

import {
  type DevicePointer,
  type DriverHandle,
  type Memcpy2D,
  type Memcpy3D,
  MemoryType,
  viewByteLength,
} from '@cumem/core-types';
import type { DriverState, StateMember } from './driver-state.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';
import { hostAddress } from './host-memory.js';
import { notSupported } from './location-support.js';

const CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 1;
/** One attribute for the whole batch: sources read in stream order, no location hints. */
const batchAttributes = {
  srcAccessOrder: CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
  srcLocHint: { type: 0, id: 0 },
  dstLocHint: { type: 0, id: 0 },
  flags: 0,
};
const batchAttributeStarts = new BigUint64Array(1);

export function memcpyAsync(
  state: DriverState,
  dst: DevicePointer,
  src: DevicePointer,
  size: number,
  stream: DriverHandle,
): void {
  state.check(
    state.native.cuMemcpyAsync(
      handleArgument(dst, 'dst'),
      handleArgument(src, 'src'),
      sizeArgument(size),
      handleArgument(stream, 'stream'),
    ),
    'cuMemcpyAsync',
  );
}

export function memcpyHtoDAsync(
  state: DriverState,
  dst: DevicePointer,
  src: ArrayBufferView,
  stream: DriverHandle,
): void {
  state.check(
    state.native.cuMemcpyHtoDAsync_v2(
      handleArgument(dst),
      hostAddress(src),
      viewByteLength(src),
      handleArgument(stream),
    ),
    'cuMemcpyHtoDAsync',
  );
}

export function memcpyDtoHAsync(
  state: DriverState,
  dst: ArrayBufferView,
  src: DevicePointer,
  stream: DriverHandle,
): void {
  state.check(
    state.native.cuMemcpyDtoHAsync_v2(
      hostAddress(dst),
      handleArgument(src),
      viewByteLength(dst),
      handleArgument(stream),
    ),
    'cuMemcpyDtoHAsync',
  );
}

export function memcpyHtoD(state: DriverState, dst: DevicePointer, src: ArrayBufferView): void {
  state.check(
    state.native.cuMemcpyHtoD_v2(handleArgument(dst), hostAddress(src), viewByteLength(src)),
    'cuMemcpyHtoD',
  );
}

export function memcpyDtoH(state: DriverState, dst: ArrayBufferView, src: DevicePointer): void {
  state.check(
    state.native.cuMemcpyDtoH_v2(hostAddress(dst), handleArgument(src), viewByteLength(dst)),
    'cuMemcpyDtoH',
  );
}

/** One end of a 2D/3D copy, read once: a device address, or JS memory and the bytes it holds. */
interface CopyEnd {
  readonly memoryType: number;
  readonly host: number;
  readonly device: number | bigint;
  /** Bytes of JS memory (from its internal slots, core-types view-facts.ts); -1 for a device address. */
  readonly hostBytes: number;
}

/** The N-API addon's ReadEndpoint: a bigint or number is a device address, else an ArrayBufferView. */
function readEnd(end: unknown, key: 'src' | 'dst'): CopyEnd {
  if (typeof end === 'bigint' || typeof end === 'number')
    return {
      memoryType: MemoryType.Unified,
      host: 0,
      device: handleArgument(end as bigint, key),
      hostBytes: -1,
    };
  if (!ArrayBuffer.isView(end))
    throw new TypeError(`${key} must be a device address (bigint) or an ArrayBufferView`);
  return { memoryType: MemoryType.Host, host: hostAddress(end), device: 0, hostBytes: viewByteLength(end) };
}

/**
 * Refuses a 2D/3D copy that would run past a JS memory endpoint (the driver would read or write
 * outside the view: a heap overflow). The last row of the last slice ends at
 * ((depth - 1) * rowsPerSlice + (height - 1)) * pitch + width. Same checks and messages as the
 * N-API adapter (binding-copies.cc, FitsHost); device endpoints are the driver's to check.
 */
function checkHostExtent(
  call: string,
  key: 'src' | 'dst',
  end: CopyEnd,
  pitch: number,
  rowsPerSlice: number,
  width: number,
  height: number,
  depth: number,
): void {
  if (end.hostBytes < 0 || width === 0 || height === 0 || depth === 0) return;
  // Above 2**53 the float product rounds, but byteLength never gets there, so a rounded product
  // only fails the comparison it would fail exactly; the message recomputes it exactly.
  const needed = ((depth - 1) * rowsPerSlice + (height - 1)) * pitch + width;
  if (needed <= end.hostBytes) return;
  const exact =
    (BigInt(depth - 1) * BigInt(rowsPerSlice) + BigInt(height - 1)) * BigInt(pitch) + BigInt(width);
  throw new RangeError(
    `${call}: ${key} holds ${end.hostBytes} bytes, fewer than the copy reaches (${exact})`,
  );
}

/** A byte or row count of a copy: the N-API adapter's ReadSize rules (koffi would pass 1.5 as 1, and abort the process on a string). */
function sizeField(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a non-negative integer number`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative safe integer`);
  return value;
}

/**
 * Every field of a 2D/3D copy, each read once (an object whose getters answer differently on a
 * second read must not pass one view's bounds check and copy into another) and checked in the
 * N-API addon's order: ends, pitches, slice heights, width, height, depth; then the stream.
 */
function pitchedCopy(call: string, copy: Memcpy2D | Memcpy3D, slices: boolean, stream: DriverHandle) {
  const src = readEnd(copy.src, 'src');
  const dst = readEnd(copy.dst, 'dst');
  const srcPitch = sizeField(copy.srcPitch, 'srcPitch');
  const dstPitch = sizeField(copy.dstPitch, 'dstPitch');
  const srcHeight = slices ? sizeField((copy as Memcpy3D).srcHeight, 'srcHeight') : 0;
  const dstHeight = slices ? sizeField((copy as Memcpy3D).dstHeight, 'dstHeight') : 0;
  const widthInBytes = sizeField(copy.widthInBytes, 'widthInBytes');
  const height = sizeField(copy.height, 'height');
  const depth = slices ? sizeField((copy as Memcpy3D).depth, 'depth') : 1;
  const streamArgument = handleArgument(stream, 'stream');
  checkHostExtent(call, 'src', src, srcPitch, slices ? srcHeight : height, widthInBytes, height, depth);
  checkHostExtent(call, 'dst', dst, dstPitch, slices ? dstHeight : height, widthInBytes, height, depth);
  const shared = {
    srcMemoryType: src.memoryType,
    srcHost: src.host,
    srcDevice: src.device,
    srcPitch,
    dstMemoryType: dst.memoryType,
    dstHost: dst.host,
    dstDevice: dst.device,
    dstPitch,
    WidthInBytes: widthInBytes,
    Height: height,
  };
  return { struct: slices ? { ...shared, srcHeight, dstHeight, Depth: depth } : shared, streamArgument };
}

export function memcpy2DAsync(state: DriverState, copy: Memcpy2D, stream: DriverHandle): void {
  const { struct, streamArgument } = pitchedCopy('memcpy2DAsync', copy, false, stream);
  state.check(state.native.cuMemcpy2DAsync_v2(struct, streamArgument), 'cuMemcpy2DAsync');
}

export function memcpy3DAsync(state: DriverState, copy: Memcpy3D, stream: DriverHandle): void {
  const { struct, streamArgument } = pitchedCopy('memcpy3DAsync', copy, true, stream);
  state.check(state.native.cuMemcpy3DAsync_v2(struct, streamArgument), 'cuMemcpy3DAsync');
}

export const memcpyBatchAsync: StateMember<'memcpyBatchAsync'> = (
  state,
  dsts,
  srcs,
  sizes,
  count,
  stream,
) => {
  if (!state.capabilities.batchMemcpy) {
    throw notSupported(state, 'cuMemcpyBatchAsync', 'batchMemcpy');
  }
  requireLength('memcpyBatchAsync', count, { dsts, srcs, sizes });
  // The driver requires numAttrs <= count, so an empty batch cannot be described; it does nothing.
  if (count === 0) return;
  const { native } = state;
  if (native.cuMemcpyBatchAsync_v2) {
    state.check(
      native.cuMemcpyBatchAsync_v2(
        dsts,
        srcs,
        sizes,
        count,
        batchAttributes,
        batchAttributeStarts,
        1,
        stream,
      ),
      'cuMemcpyBatchAsync',
    );
  } else {
    // CUDA 12.8/12.9: the same call with a `size_t *failIdx` output before the stream.
    const failIndex = state.scratch.address;
    state.check(
      native.cuMemcpyBatchAsync!(
        dsts,
        srcs,
        sizes,
        count,
        batchAttributes,
        batchAttributeStarts,
        1,
        failIndex,
        stream,
      ),
      'cuMemcpyBatchAsync',
    );
  }
};

/** Throws RangeError when an array the driver reads `count` entries from is shorter. */
export function requireLength(call: string, count: number, arrays: Record<string, { length: number }>): void {
  for (const [name, array] of Object.entries(arrays)) {
    if (array.length < count)
      throw new RangeError(`${call}: ${name} has ${array.length} entries, fewer than count ${count}`);
  }
}

/**
 * The three memset widths differ only in their entry point and the element the value is cut to
 * (`mask`): the value is a C int by the addon's rule, its low bytes fill the elements.
 */
function memsetAsync(
  state: DriverState,
  entry: 'cuMemsetD8Async' | 'cuMemsetD16Async' | 'cuMemsetD32Async',
  mask: number,
  pointer: DevicePointer,
  value: number,
  count: number,
  stream: DriverHandle,
): void {
  state.check(
    state.native[entry](
      handleArgument(pointer, 'pointer'),
      (intArgument(value, 'value') & mask) >>> 0,
      sizeArgument(count, 'count'),
      handleArgument(stream, 'stream'),
    ),
    entry,
  );
}

export const memsetD8Async: StateMember<'memsetD8Async'> = (state, pointer, value, count, stream) =>
  memsetAsync(state, 'cuMemsetD8Async', 0xff, pointer, value, count, stream);

export const memsetD16Async: StateMember<'memsetD16Async'> = (state, pointer, value, count, stream) =>
  memsetAsync(state, 'cuMemsetD16Async', 0xffff, pointer, value, count, stream);

export const memsetD32Async: StateMember<'memsetD32Async'> = (state, pointer, value, count, stream) =>
  memsetAsync(state, 'cuMemsetD32Async', 0xffffffff, pointer, value, count, stream);
