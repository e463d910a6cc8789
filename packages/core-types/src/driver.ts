import type { DriverCompute } from './driver-compute.js';
import type {
  DeviceAttribute,
  MemAdvise,
  MemLocation,
  MemPoolAttribute,
  MemRangeAttribute,
  P2PAttribute,
  PointerAttribute,
  PointerHandleAttribute,
} from './driver-constants.js';
import type { DriverNativeExchange } from './driver-native-exchange.js';
import type { DriverPageableMemory } from './driver-pageable-memory.js';
import type { DriverPoolQueries } from './driver-pool-queries.js';
import type {
  DevicePointer,
  DriverCapabilities,
  DriverHandle,
  MemAccessDescriptor,
  Memcpy2D,
  Memcpy3D,
  MemPoolProperties,
} from './driver-types.js';
import type { DriverVirtualMemory } from './driver-virtual-memory.js';

/**
 * The driver contract: a thin, typed, synchronous mirror of the CUDA driver entry points that
 * cumem's higher layers use. Implemented by `@cumem/driver-napi`, `@cumem/driver-ffi` and
 * the test-only reference driver; all pass one conformance suite.
 *
 * Rules every adapter keeps:
 * - Loading is lazy: constructing an adapter never touches `libcuda.so.1`. The first member
 *   used loads it and calls `cuInit(0)`; failure is a `DriverUnavailableError`, every time.
 * - A driver error becomes a `CudaError` with the code, its `cuGetErrorName`, the entry point
 *   and `cuGetErrorString`. Nothing is retried or swallowed.
 * - Sizes and counts are numbers (bytes unless named otherwise); addresses and handles are bigint.
 *   The contract does not validate user input: `@cumem/memory` does, before calling it.
 * - Calls that need a context (allocation, copies, streams, `memGetInfo`) use the calling
 *   thread's current context: the caller makes one current with `contextSetCurrent`.
 * - Every call is synchronous and returns when the driver returns, except the `*Async`
 *   waits that return a Promise and keep the event loop free. Driver `...Async` entry points
 *   are mirrored as synchronous calls that enqueue work, exactly as the driver does.
 * - JS memory passed in (`ArrayBufferView`) is read or written in place: for `*Async` copies
 *   the caller keeps it alive until the stream has passed the copy.
 */
export interface Driver
  extends DriverPoolQueries,
    DriverCompute,
    DriverVirtualMemory,
    DriverNativeExchange,
    DriverPageableMemory {
  /** Adapter name: `'napi'`, `'ffi'`, `'reference'`, or another adapter's own. */
  readonly name: string;
  /** The `DRIVER_CONTRACT_VERSION` this adapter implements. Reading it never loads the driver. */
  readonly contractVersion: number;
  /** `cuDriverGetVersion`: 1000 * major + 10 * minor (13000 = CUDA 13.0). Loads the driver. */
  readonly driverVersion: number;
  /** What the loaded driver can do. Loads the driver. */
  readonly capabilities: DriverCapabilities;

  // --- Devices --------------------------------------------------------------------------
  /** `cuDeviceGetCount`. */
  deviceGetCount(): number;
  /** `cuDeviceGetName`. */
  deviceGetName(ordinal: number): string;
  /** `cuDeviceGetUuid`: 16 bytes. */
  deviceGetUuid(ordinal: number): Uint8Array;
  /** `cuDeviceTotalMem`, in bytes. */
  deviceTotalMem(ordinal: number): number;
  /** `cuDeviceGetAttribute`. */
  deviceGetAttribute(attribute: DeviceAttribute | number, ordinal: number): number;
  /** `cuDeviceGetDefaultMemPool`. */
  deviceGetDefaultMemPool(ordinal: number): DriverHandle;
  /** `cuDeviceGetMemPool`: the pool `cuMemAllocAsync` uses on this device now. */
  deviceGetMemPool(ordinal: number): DriverHandle;
  /** `cuDeviceCanAccessPeer`: whether device `ordinal` can directly access memory of device `peerOrdinal`. */
  deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean;
  /** `cuDeviceGetP2PAttribute`: a `P2PAttribute` of the link from device `srcOrdinal` to `dstOrdinal`. */
  deviceGetP2PAttribute(attribute: P2PAttribute | number, srcOrdinal: number, dstOrdinal: number): number;

  // --- Contexts -------------------------------------------------------------------------
  /** `cuDevicePrimaryCtxRetain`: retains (reference-counted) and returns the primary context. */
  primaryContextRetain(ordinal: number): DriverHandle;
  /** `cuDevicePrimaryCtxRelease`: drops one reference taken by {@link primaryContextRetain}. */
  primaryContextRelease(ordinal: number): void;
  /** `cuCtxSetCurrent` for the calling thread. `0n` unbinds. */
  contextSetCurrent(context: DriverHandle): void;
  /** `cuCtxGetCurrent`: `0n` when none is current. */
  contextGetCurrent(): DriverHandle;
  /** `cuCtxGetDevice`: ordinal of the current context's device (its `CUdevice` mapped back). The cheapest real driver call; benchmarks time it. */
  contextGetDevice(): number;
  /** `cuCtxSynchronize`. */
  contextSynchronize(): void;
  /** `cuMemGetInfo` for the current context's device, in bytes. */
  memGetInfo(): { free: number; total: number };
  /** `cuCtxGetStreamPriorityRange`: `greatest` is the numerically lowest (highest) priority. */
  contextGetStreamPriorityRange(): { least: number; greatest: number };
  /**
   * `cuCtxEnablePeerAccess(peerContext, 0)`: the current context may access `cuMemAlloc` memory
   * of `peerContext` directly. `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED` is treated as success,
   * so calling it twice is harmless; `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` is thrown.
   */
  contextEnablePeerAccess(peerContext: DriverHandle): void;

  // --- Streams and events ---------------------------------------------------------------
  /** `cuStreamCreateWithPriority`. `flags`: `StreamFlags`. */
  streamCreate(flags: number, priority: number): DriverHandle;
  /** `cuStreamDestroy`: pending work still completes. */
  streamDestroy(stream: DriverHandle): void;
  /** `cuStreamSynchronize`: blocks the calling thread. */
  streamSynchronize(stream: DriverHandle): void;
  /**
   * Resolves when the stream is idle without blocking the event loop (N-API: `cuStreamSynchronize`
   * on a thread-pool thread; FFI: polling `cuStreamQuery`); rejects with the `CudaError`, whose
   * `call` is `'cuStreamSynchronize'` in every adapter. Never settles into, or aborts, a Worker
   * terminated meanwhile. The caller keeps `stream` alive until it settles.
   */
  streamSynchronizeAsync(stream: DriverHandle): Promise<void>;
  /** `cuStreamQuery`: true when all work is done, false while work is pending (`CUDA_ERROR_NOT_READY`). */
  streamQuery(stream: DriverHandle): boolean;
  /** `cuStreamWaitEvent`: later work on `stream` waits for `event`. */
  streamWaitEvent(stream: DriverHandle, event: DriverHandle): void;
  /** `cuEventCreate`. `flags`: `EventFlags`. */
  eventCreate(flags: number): DriverHandle;
  /** `cuEventDestroy`. */
  eventDestroy(event: DriverHandle): void;
  /** `cuEventRecord`. */
  eventRecord(event: DriverHandle, stream: DriverHandle): void;
  /** `cuEventSynchronize`: blocks the calling thread. */
  eventSynchronize(event: DriverHandle): void;
  /** Like {@link streamSynchronizeAsync} for an event (`cuEventSynchronize` / `cuEventQuery`; `call` `'cuEventSynchronize'`). */
  eventSynchronizeAsync(event: DriverHandle): Promise<void>;
  /** `cuEventQuery`: true when the event has completed. */
  eventQuery(event: DriverHandle): boolean;
  /** `cuEventElapsedTime`: milliseconds from `start` to `end`. */
  eventElapsedTime(start: DriverHandle, end: DriverHandle): number;

  // --- Stream-ordered pools ---------------------------------------------------------------
  /** `cuMemPoolCreate`. The caller owns the pool and destroys it with {@link memPoolDestroy}. */
  memPoolCreate(properties: MemPoolProperties): DriverHandle;
  /** `cuMemPoolDestroy`. */
  memPoolDestroy(pool: DriverHandle): void;
  /** `cuMemPoolSetAttribute`. Byte-count attributes take a number of bytes; reuse attributes 0 or 1. */
  memPoolSetAttribute(pool: DriverHandle, attribute: MemPoolAttribute | number, value: number): void;
  /** `cuMemPoolGetAttribute`. */
  memPoolGetAttribute(pool: DriverHandle, attribute: MemPoolAttribute | number): number;
  /** `cuMemPoolSetAccess` for one location. `flags`: `MemAccessFlags`. */
  memPoolSetAccess(pool: DriverHandle, location: MemLocation, flags: number): void;
  /** `cuMemPoolGetAccess`: the `MemAccessFlags` `location` has on the pool. */
  memPoolGetAccess(pool: DriverHandle, location: MemLocation): number;
  /** `cuMemPoolTrimTo`: release reserved memory down to `minBytesToKeep`. */
  memPoolTrimTo(pool: DriverHandle, minBytesToKeep: number): void;
  /** `cuMemAllocFromPoolAsync`: `size` bytes from `pool`, ordered on `stream`. Hot path. Arguments follow `checkSize` / `checkAddress` (else TypeError / RangeError before any call). */
  memAllocFromPoolAsync(size: number, pool: DriverHandle, stream: DriverHandle): DevicePointer;
  /** `cuMemFreeAsync`: returns a pool allocation, ordered on `stream`. Hot path. Arguments as {@link memAllocFromPoolAsync}. */
  memFreeAsync(pointer: DevicePointer, stream: DriverHandle): void;
  /** `cuMemPoolExportToShareableHandle` as a POSIX file descriptor, owned by the caller (close it with `fs.closeSync`). */
  memPoolExportToFileDescriptor(pool: DriverHandle): number;
  /** `cuMemPoolImportFromShareableHandle` from a POSIX file descriptor; the descriptor stays the caller's. */
  memPoolImportFromFileDescriptor(fd: number): DriverHandle;
  /** `cuMemPoolExportPointer`: 64 opaque bytes naming one allocation of an exported pool. */
  memPoolExportPointer(pointer: DevicePointer): Uint8Array;
  /** `cuMemPoolImportPointer`: the allocation named by `data` in an imported pool. Free it with {@link memFreeAsync}. */
  memPoolImportPointer(pool: DriverHandle, data: Uint8Array): DevicePointer;
  /**
   * `cuMemPoolSetAccess` with several descriptors in one driver call (an access transition can
   * be slow per call, so a bulk change is one call). An empty list makes no driver call.
   */
  memPoolSetAccessMany(pool: DriverHandle, descriptors: readonly MemAccessDescriptor[]): void;

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
  /** `cuIpcGetMemHandle`: 64 bytes for a `memAlloc` allocation. */
  ipcGetMemHandle(pointer: DevicePointer): Uint8Array;
  /** `cuIpcOpenMemHandle`. `flags`: `IpcMemFlags`. */
  ipcOpenMemHandle(handle: Uint8Array, flags: number): DevicePointer;
  /** `cuIpcCloseMemHandle`. */
  ipcCloseMemHandle(pointer: DevicePointer): void;
  /**
   * `cuIpcGetEventHandle`: 64 bytes naming an event created with
   * `EventFlags.Interprocess | EventFlags.DisableTiming`, for another process's
   * {@link ipcOpenEventHandle}. Requires `capabilities.interprocess`.
   */
  ipcGetEventHandle(event: DriverHandle): Uint8Array;
  /**
   * `cuIpcOpenEventHandle`: an event of another process, to wait on (`streamWaitEvent`,
   * `eventSynchronize`, `eventQuery`) or record; destroy it with {@link eventDestroy}.
   * @throws RangeError when `handle` is not 64 bytes.
   */
  ipcOpenEventHandle(handle: Uint8Array): DriverHandle;

  // --- Copies and fills --------------------------------------------------------------------
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
  /**
   * A new descriptor for the open file `fd` refers to: POSIX `fcntl(fd, F_DUPFD_CLOEXEC, 0)`
   * (`dup` that is not inherited across exec). Not a driver call; Node has no `dup`. The caller
   * owns the result and closes it (`fs.closeSync`); `fd` stays open and stays the caller's.
   * Errors come from driver-kit's `checkFileDescriptor` and `duplicateDescriptorError`.
   * @throws TypeError / RangeError for a number that is not a descriptor; RangeError with
   *   `code` 'EBADF' when `fd` is not open; Error with `code` (e.g. 'EMFILE') for other failures.
   */
  duplicateFileDescriptor(fd: number): number;
}
