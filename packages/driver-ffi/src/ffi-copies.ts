// Copies and fills. JS memory goes to the driver in place: koffi passes a typed array's address.

import {
  type CopyEndpoint,
  type DevicePointer,
  type DriverHandle,
  type Memcpy2D,
  type Memcpy3D,
  MemoryType,
} from '@cumem/core-types';
import type { DriverState, StateMember } from './driver-state.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';
import { addressOf, hostAddress } from './host-memory.js';
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
      src.byteLength,
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
      dst.byteLength,
      handleArgument(stream),
    ),
    'cuMemcpyDtoHAsync',
  );
}

export function memcpyHtoD(state: DriverState, dst: DevicePointer, src: ArrayBufferView): void {
  state.check(
    state.native.cuMemcpyHtoD_v2(handleArgument(dst), hostAddress(src), src.byteLength),
    'cuMemcpyHtoD',
  );
}

export function memcpyDtoH(state: DriverState, dst: ArrayBufferView, src: DevicePointer): void {
  state.check(
    state.native.cuMemcpyDtoH_v2(hostAddress(dst), handleArgument(src), dst.byteLength),
    'cuMemcpyDtoH',
  );
}

/**
 * Refuses a 2D/3D copy that would run past a JS memory endpoint (the driver would read or write
 * outside the view: a heap overflow). The last row of the last slice ends at
 * ((depth - 1) * rowsPerSlice + (height - 1)) * pitch + width. Same checks and messages as the
 * N-API adapter (binding-copies.cc, ReadField and FitsHost); device endpoints are the driver's to check.
 */
function checkHostExtent(
  call: string,
  key: 'src' | 'dst',
  end: CopyEndpoint,
  pitch: number,
  rowsPerSlice: number,
  width: number,
  height: number,
  depth: number,
): void {
  if (typeof end === 'bigint') return;
  sizeField(pitch, `${key}Pitch`);
  sizeField(rowsPerSlice, depth === 1 && rowsPerSlice === height ? 'height' : `${key}Height`);
  sizeField(width, 'widthInBytes');
  sizeField(height, 'height');
  sizeField(depth, 'depth');
  if (width === 0 || height === 0 || depth === 0) return;
  // Above 2**53 the float product rounds, but byteLength never gets there, so a rounded product
  // only fails the comparison it would fail exactly; the message recomputes it exactly.
  const needed = ((depth - 1) * rowsPerSlice + (height - 1)) * pitch + width;
  if (needed <= end.byteLength) return;
  const exact =
    (BigInt(depth - 1) * BigInt(rowsPerSlice) + BigInt(height - 1)) * BigInt(pitch) + BigInt(width);
  throw new RangeError(
    `${call}: ${key} holds ${end.byteLength} bytes, fewer than the copy reaches (${exact})`,
  );
}

/** A byte or row count of a copy with a JS memory end: the N-API adapter's ReadSize rules. */
function sizeField(value: unknown, name: string): void {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a non-negative integer number`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative safe integer`);
}

/** memory type, host address, device address of one end of a 2D/3D copy. */
function endpoint(end: CopyEndpoint): [number, bigint, bigint] {
  return typeof end === 'bigint' ? [MemoryType.Unified, 0n, end] : [MemoryType.Host, addressOf(end), 0n];
}

export function memcpy2DAsync(state: DriverState, copy: Memcpy2D, stream: DriverHandle): void {
  const struct = copyEnds('memcpy2DAsync', copy, copy.height, copy.height, 1);
  state.check(state.native.cuMemcpy2DAsync_v2(struct, stream), 'cuMemcpy2DAsync');
}

export function memcpy3DAsync(state: DriverState, copy: Memcpy3D, stream: DriverHandle): void {
  const { srcHeight, dstHeight, depth } = copy;
  const struct = {
    ...copyEnds('memcpy3DAsync', copy, srcHeight, dstHeight, depth),
    srcHeight,
    dstHeight,
    Depth: depth,
  };
  state.check(state.native.cuMemcpy3DAsync_v2(struct, stream), 'cuMemcpy3DAsync');
}

/**
 * The fields a 2D and a 3D copy struct share (both ends, pitches, width, height), after checking
 * that each JS end holds every byte the copy reaches (`srcRows` / `dstRows` rows per slice).
 */
function copyEnds(call: string, copy: Memcpy2D, srcRows: number, dstRows: number, depth: number) {
  const { srcPitch, dstPitch, widthInBytes, height } = copy;
  checkHostExtent(call, 'src', copy.src, srcPitch, srcRows, widthInBytes, height, depth);
  checkHostExtent(call, 'dst', copy.dst, dstPitch, dstRows, widthInBytes, height, depth);
  const [srcMemoryType, srcHost, srcDevice] = endpoint(copy.src);
  const [dstMemoryType, dstHost, dstDevice] = endpoint(copy.dst);
  return {
    srcMemoryType,
    srcHost,
    srcDevice,
    srcPitch,
    dstMemoryType,
    dstHost,
    dstDevice,
    dstPitch,
    WidthInBytes: widthInBytes,
    Height: height,
  };
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

export const memsetD8Async: StateMember<'memsetD8Async'> = (state, pointer, value, count, stream) => {
  state.check(
    state.native.cuMemsetD8Async(
      handleArgument(pointer, 'pointer'),
      intArgument(value, 'value') & 0xff,
      sizeArgument(count, 'count'),
      handleArgument(stream, 'stream'),
    ),
    'cuMemsetD8Async',
  );
};

export const memsetD16Async: StateMember<'memsetD16Async'> = (state, pointer, value, count, stream) => {
  state.check(
    state.native.cuMemsetD16Async(
      handleArgument(pointer, 'pointer'),
      intArgument(value, 'value') & 0xffff,
      sizeArgument(count, 'count'),
      handleArgument(stream, 'stream'),
    ),
    'cuMemsetD16Async',
  );
};

export const memsetD32Async: StateMember<'memsetD32Async'> = (state, pointer, value, count, stream) => {
  state.check(
    state.native.cuMemsetD32Async(
      handleArgument(pointer, 'pointer'),
      intArgument(value, 'value') >>> 0,
      sizeArgument(count, 'count'),
      handleArgument(stream, 'stream'),
    ),
    'cuMemsetD32Async',
  );
};
