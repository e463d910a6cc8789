// Copies and fills. JS memory goes to the driver in place: koffi passes a typed array's address.

import {
  type CopyEndpoint,
  type DevicePointer,
  type DriverHandle,
  type Memcpy2D,
  type Memcpy3D,
  MemoryType,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { handleArgument } from './handle-argument.js';
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
    state.native.cuMemcpyAsync(handleArgument(dst), handleArgument(src), size, handleArgument(stream)),
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

/** memory type, host address, device address of one end of a 2D/3D copy. */
function endpoint(end: CopyEndpoint): [number, bigint, bigint] {
  return typeof end === 'bigint' ? [MemoryType.Unified, 0n, end] : [MemoryType.Host, addressOf(end), 0n];
}

export function memcpy2DAsync(state: DriverState, copy: Memcpy2D, stream: DriverHandle): void {
  const [srcMemoryType, srcHost, srcDevice] = endpoint(copy.src);
  const [dstMemoryType, dstHost, dstDevice] = endpoint(copy.dst);
  const struct = {
    srcMemoryType,
    srcHost,
    srcDevice,
    srcPitch: copy.srcPitch,
    dstMemoryType,
    dstHost,
    dstDevice,
    dstPitch: copy.dstPitch,
    WidthInBytes: copy.widthInBytes,
    Height: copy.height,
  };
  state.check(state.native.cuMemcpy2DAsync_v2(struct, stream), 'cuMemcpy2DAsync');
}

export function memcpy3DAsync(state: DriverState, copy: Memcpy3D, stream: DriverHandle): void {
  const [srcMemoryType, srcHost, srcDevice] = endpoint(copy.src);
  const [dstMemoryType, dstHost, dstDevice] = endpoint(copy.dst);
  const struct = {
    srcMemoryType,
    srcHost,
    srcDevice,
    srcPitch: copy.srcPitch,
    srcHeight: copy.srcHeight,
    dstMemoryType,
    dstHost,
    dstDevice,
    dstPitch: copy.dstPitch,
    dstHeight: copy.dstHeight,
    WidthInBytes: copy.widthInBytes,
    Height: copy.height,
    Depth: copy.depth,
  };
  state.check(state.native.cuMemcpy3DAsync_v2(struct, stream), 'cuMemcpy3DAsync');
}

export function memcpyBatchAsync(
  state: DriverState,
  dsts: BigUint64Array,
  srcs: BigUint64Array,
  sizes: BigUint64Array,
  count: number,
  stream: DriverHandle,
): void {
  if (!state.capabilities.batchMemcpy) {
    throw notSupported(state, 'cuMemcpyBatchAsync', "a CUDA 12.8 driver used with entryPoints 'auto'");
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
}

/** Throws RangeError when an array the driver reads `count` entries from is shorter. */
export function requireLength(call: string, count: number, arrays: Record<string, { length: number }>): void {
  for (const [name, array] of Object.entries(arrays)) {
    if (array.length < count)
      throw new RangeError(`${call}: ${name} has ${array.length} entries, fewer than count ${count}`);
  }
}

export function memsetD8Async(
  state: DriverState,
  pointer: DevicePointer,
  value: number,
  count: number,
  stream: DriverHandle,
): void {
  state.check(
    state.native.cuMemsetD8Async(handleArgument(pointer), value & 0xff, count, handleArgument(stream)),
    'cuMemsetD8Async',
  );
}

export function memsetD16Async(
  state: DriverState,
  pointer: DevicePointer,
  value: number,
  count: number,
  stream: DriverHandle,
): void {
  state.check(
    state.native.cuMemsetD16Async(handleArgument(pointer), value & 0xffff, count, handleArgument(stream)),
    'cuMemsetD16Async',
  );
}

export function memsetD32Async(
  state: DriverState,
  pointer: DevicePointer,
  value: number,
  count: number,
  stream: DriverHandle,
): void {
  state.check(
    state.native.cuMemsetD32Async(handleArgument(pointer), value >>> 0, count, handleArgument(stream)),
    'cuMemsetD32Async',
  );
}
