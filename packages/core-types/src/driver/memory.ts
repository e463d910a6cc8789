// Memory outside pools: classic device, page-locked and managed allocations, managed-memory
// advice and prefetches, pointer attributes and views of host-accessible memory, and pageable
// host memory (registration in place, staged copies).
import type {
  MemAdvise,
  MemLocation,
  MemRangeAttribute,
  PointerAttribute,
  PointerHandleAttribute,
} from './constants.js';
import type { DevicePointer, DriverHandle } from './handles.js';

/** Classic allocation, managed memory and pointers. Part of {@link Driver}. */
export interface DriverMemory {
  // --- Classic allocation -----------------------------------------------------------------
  /** `cuMemAlloc`. */
  memAlloc(size: number): DevicePointer;
  /** `cuMemFree`. */
  memFree(pointer: DevicePointer): void;
  /** `cuMemHostAlloc`: page-locked host memory. `flags`: `MemHostAllocFlags`. */
  memHostAlloc(size: number, flags: number): DevicePointer;
  /** `cuMemFreeHost`. */
  memFreeHost(pointer: DevicePointer): void;
  /** `cuMemAllocManaged`. `flags`: `MemAttachFlags`. */
  memAllocManaged(size: number, flags: number): DevicePointer;

  // --- Managed memory ---------------------------------------------------------------------
  /** `cuMemAdvise`: the `CUmemLocation` form (Host id sent as 0), else (`!capabilities.memoryLocations`) the CUDA 8.0 form with the ordinal's `CUdevice`. */
  memAdvise(pointer: DevicePointer, size: number, advice: MemAdvise | number, location: MemLocation): void;
  /** `cuMemPrefetchAsync` (forms as in {@link memAdvise}). */
  memPrefetchAsync(pointer: DevicePointer, size: number, location: MemLocation, stream: DriverHandle): void;
  /**
   * `cuMemPrefetchBatchAsync`: ranges `pointers[i]`, `sizes[i]` for i < count;
   * `locations[k]` applies from `locationStarts[k]` up to the next start. Requires
   * `capabilities.batchPrefetchDiscard`.
   */
  memPrefetchBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    locations: readonly MemLocation[],
    locationStarts: readonly number[],
    stream: DriverHandle,
  ): void;
  /** `cuMemDiscardBatchAsync`. Requires `capabilities.batchPrefetchDiscard`. */
  memDiscardBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void;
  /** `cuMemDiscardAndPrefetchBatchAsync`, arguments as {@link memPrefetchBatchAsync}. */
  memDiscardAndPrefetchBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    locations: readonly MemLocation[],
    locationStarts: readonly number[],
    stream: DriverHandle,
  ): void;
  /** `cuMemRangeGetAttribute` for a 4-byte integer attribute. */
  memRangeGetAttribute(pointer: DevicePointer, size: number, attribute: MemRangeAttribute | number): number;
  /** `cuMemRangeGetAttribute(ACCESSED_BY)`: ordinals of devices advised as accessors (`CU_DEVICE_CPU` = -1 for the host). */
  memRangeGetAccessedBy(pointer: DevicePointer, size: number): number[];

  // --- Pointers ------------------------------------------------------------------------
  /** `cuPointerGetAttribute` for attributes whose value is a number (booleans as 0/1). */
  pointerGetAttribute(pointer: DevicePointer, attribute: PointerAttribute | number): number;
  /** `cuPointerGetAttribute` for attributes whose value is an address or handle. */
  pointerGetHandleAttribute(pointer: DevicePointer, attribute: PointerHandleAttribute | number): bigint;
  /**
   * A zero-copy view of `size` bytes of host-accessible memory at `pointer` (page-locked,
   * managed, or host memory the driver mapped). Not a driver call; the view does not keep the
   * memory alive, so the caller must not use it after freeing.
   * @throws RangeError for a size over 4 GiB (2**32 bytes), the most one view can show in every adapter.
   */
  hostView(pointer: DevicePointer, size: number): Uint8Array;
  /** The address of the first byte of JS memory (for handing host arrays to native code). Not a driver call. */
  addressOf(view: ArrayBufferView | ArrayBuffer): DevicePointer;
  /**
   * Detaches an ArrayBuffer made by {@link hostView} so that every view over it reads as length
   * 0 (the memory itself is untouched; free it as usual). Not a driver call. @cumem/memory calls
   * it when a buffer that handed out views is closed, so no view reaches memory a pool reuses.
   * @returns true when detached; false when the adapter cannot detach such a buffer (the FFI
   *   adapter: koffi's views cannot be detached from JS), or `view` is not one it made (the
   *   reference driver, for JS memory).
   * @throws TypeError when `view` is not an ArrayBuffer.
   */
  detachView(view: ArrayBuffer): boolean;
}

/**
 * How `Driver.stagedCopyHtoD` / `Driver.stagedCopyDtoH` split a copy: `threads`
 * native threads each take one contiguous slice and move it through two page-locked staging
 * chunks of `chunkBytes` (one being filled by the CPU while the other is being copied by DMA).
 */
export interface StagedCopyOptions {
  /** Bytes of each staging chunk: a positive safe integer. */
  readonly chunkBytes: number;
  /** Threads that copy at once: an integer from 1 to 64. */
  readonly threads: number;
}

/**
 * Pageable host memory: registration in place and staged copies through page-locked chunks.
 * Part of {@link Driver}.
 */
export interface DriverPageableMemory {
  /**
   * `cuMemHostRegister_v2` over the bytes of `view` (all of an ArrayBuffer): page-locks them in
   * place so copies from and to them run at pinned speed. `flags`: `MemHostRegisterFlags`.
   * Returns the address of the first byte (what {@link memHostUnregister} takes). Unsafe by
   * nature: the memory must stay allocated until it is unregistered (see `@cumem/memory`'s
   * `registerHostMemory`, which guarantees that). Not for a zero-length view (the driver refuses it).
   */
  memHostRegister(view: ArrayBufferView | ArrayBuffer, flags: number): DevicePointer;
  /** `cuMemHostUnregister`: `pointer` is what {@link memHostRegister} returned. */
  memHostUnregister(pointer: DevicePointer): void;
  /**
   * All of `src` (pageable JS memory) to `dst`, through page-locked staging chunks on
   * `options.threads` native threads (the N-API adapter; the FFI adapter's equivalent is in its
   * README), in the calling thread's current context. Work queued on `stream` before the call
   * finishes first, and the copy is complete when the call returns (it blocks the calling
   * thread): the result is what `memcpyHtoD` gives, byte for byte. The staging chunks are
   * allocated on first use and kept by the driver object.
   * @throws TypeError when `options` is not an object; RangeError when `options.chunkBytes` is
   *   not a positive safe integer or `options.threads` not an integer from 1 to 64; both before
   *   any driver call.
   */
  stagedCopyHtoD(
    dst: DevicePointer,
    src: ArrayBufferView,
    stream: DriverHandle,
    options: StagedCopyOptions,
  ): void;
  /** All of `dst` (pageable JS memory) from `src`, as {@link stagedCopyHtoD} in the other direction. */
  stagedCopyDtoH(
    dst: ArrayBufferView,
    src: DevicePointer,
    stream: DriverHandle,
    options: StagedCopyOptions,
  ): void;
}
