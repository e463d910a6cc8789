// Copies and fills between device memory, unified addresses and JS memory.
import type { CopyEndpoint, DevicePointer, DriverHandle } from './handles.js';

/** A 2D copy between pitched rows (`cuMemcpy2DAsync`). All sizes in bytes. */
export interface Memcpy2D {
  readonly src: CopyEndpoint;
  readonly srcPitch: number;
  readonly dst: CopyEndpoint;
  readonly dstPitch: number;
  /** Bytes copied from each row. */
  readonly widthInBytes: number;
  /** Number of rows. */
  readonly height: number;
}

/** A 3D copy between pitched slices (`cuMemcpy3DAsync`). All sizes in bytes or rows. */
export interface Memcpy3D extends Memcpy2D {
  /** Rows per slice of the source (slice stride = srcPitch * srcHeight). */
  readonly srcHeight: number;
  /** Rows per slice of the destination. */
  readonly dstHeight: number;
  /** Number of slices. */
  readonly depth: number;
}

/** Copies and fills. Part of {@link Driver}. */
export interface DriverCopies {
  /** `cuMemcpyAsync` between unified-address pointers. */
  memcpyAsync(dst: DevicePointer, src: DevicePointer, size: number, stream: DriverHandle): void;
  /** `cuMemcpyHtoDAsync` of all of `src` (its `byteLength`). */
  memcpyHtoDAsync(dst: DevicePointer, src: ArrayBufferView, stream: DriverHandle): void;
  /** `cuMemcpyDtoHAsync` filling all of `dst`. */
  memcpyDtoHAsync(dst: ArrayBufferView, src: DevicePointer, stream: DriverHandle): void;
  /** `cuMemcpyHtoD`, synchronous. */
  memcpyHtoD(dst: DevicePointer, src: ArrayBufferView): void;
  /** `cuMemcpyDtoH`, synchronous. Benchmarks time it with 8 bytes. */
  memcpyDtoH(dst: ArrayBufferView, src: DevicePointer): void;
  /**
   * `cuMemcpy2DAsync`: pointers as `CU_MEMORYTYPE_UNIFIED`, JS memory as `CU_MEMORYTYPE_HOST`.
   * @throws RangeError `memcpy2DAsync: src holds N bytes, fewer than the copy reaches (M)` (or
   *   `dst`) when the copy would run past a JS memory endpoint, before any driver call.
   */
  memcpy2DAsync(copy: Memcpy2D, stream: DriverHandle): void;
  /** `cuMemcpy3DAsync`, endpoints and the JS memory bounds check as in {@link memcpy2DAsync}. */
  memcpy3DAsync(copy: Memcpy3D, stream: DriverHandle): void;
  /**
   * `cuMemcpyBatchAsync`: `count` copies of `sizes[i]` bytes from `srcs[i]` to `dsts[i]`, all
   * with source access order "stream". Requires `capabilities.batchMemcpy`.
   */
  memcpyBatchAsync(
    dsts: BigUint64Array,
    srcs: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void;
  /** `cuMemsetD8Async`: `count` bytes. */
  memsetD8Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void;
  /** `cuMemsetD16Async`: `count` 16-bit elements. */
  memsetD16Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void;
  /** `cuMemsetD32Async`: `count` 32-bit elements. */
  memsetD32Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void;
  /**
   * `cuMemcpyPeerAsync`: `size` bytes from `src` (memory of `srcContext`'s device) to `dst`
   * (memory of `dstContext`'s device). Works whether or not peer access is enabled; without
   * it the driver stages the copy.
   */
  memcpyPeerAsync(
    dst: DevicePointer,
    dstContext: DriverHandle,
    src: DevicePointer,
    srcContext: DriverHandle,
    size: number,
    stream: DriverHandle,
  ): void;
}
