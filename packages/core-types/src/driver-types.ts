// The value types of the Driver contract (driver.ts): handles, options, capabilities, copy shapes
// and the adapter factory's type.
import type { Driver } from './driver.js';
import type { MemLocation } from './driver-constants.js';

/**
 * Version of the contract below. Adapters report the version they implement; a higher layer
 * refuses an adapter of another major version with a clear error instead of misbehaving.
 */
export const DRIVER_CONTRACT_VERSION = 2;

/** A device or unified-address pointer (`CUdeviceptr`, or a host pointer under UVA). */
export type DevicePointer = bigint;
/** An opaque driver handle: `CUcontext`, `CUstream`, `CUevent` or `CUmemoryPool`. `0n` is the null handle. */
export type DriverHandle = bigint;
/** Either end of a 2D/3D copy: a unified-address pointer, or JS host memory (its first byte). */
export type CopyEndpoint = DevicePointer | ArrayBufferView;

/**
 * What this driver, as loaded, can do. Callers branch on these instead of catching errors.
 * Every flag is fixed once the driver has loaded.
 */
export interface DriverCapabilities {
  /**
   * `cuMemAdvise` / `cuMemPrefetchAsync` take a `CUmemLocation` (CUDA >= 12.2, the `_v2` entry
   * points). When false the adapter uses the older forms, which take a device ordinal or
   * `CU_DEVICE_CPU`: `MemLocation`s of type Device and Host still work, HostNuma* do not.
   */
  readonly memoryLocations: boolean;
  /** Host NUMA locations (`HostNuma`, `HostNumaCurrent`) in advise, prefetch, range attributes and pools. cumem requires a CUDA 13 driver for them. */
  readonly hostNumaLocations: boolean;
  /** `cuMemPrefetchBatchAsync`, `cuMemDiscardBatchAsync`, `cuMemDiscardAndPrefetchBatchAsync` (CUDA >= 13.0). */
  readonly batchPrefetchDiscard: boolean;
  /** `cuMemcpyBatchAsync` (CUDA >= 12.8). */
  readonly batchMemcpy: boolean;
  /** Pools of page-locked host memory: `cuMemPoolCreate` with a Host or HostNuma location (CUDA >= 12.6 for HostNuma, 13.0 for Host). */
  readonly hostMemoryPools: boolean;
  /** Pools of managed memory: `cuMemPoolCreate` with `MemAllocationType.Managed` (CUDA >= 13.0). */
  readonly managedMemoryPools: boolean;
  /** Cross-process sharing: pool export as a POSIX file descriptor, `cuIpcGetMemHandle` and `cuIpcGetEventHandle`. False for the host-memory reference driver. */
  readonly interprocess: boolean;
  /** `cuMemGetMemPool` / `cuMemGetDefaultMemPool` (CUDA >= 13.0): name a location's pool, e.g. the host's. */
  readonly memoryPoolQueries: boolean;
  /** `cuFuncGetParamInfo` (CUDA >= 12.4): kernels report each parameter's offset and size, so launches check their arguments. */
  readonly kernelParameterInfo: boolean;
}

/** How the adapter resolves versioned entry points. */
export type EntryPointMode = 'auto' | 'legacy';

/** Options every adapter's `createDriver(options?)` accepts. */
export interface DriverOptions {
  /**
   * `'auto'` (default): the newest form of each entry point this driver has. `'legacy'`: the
   * forms of a CUDA 12.0 driver (advise and prefetch by `CUdevice`, no batch or NUMA entry
   * points), to test the fallbacks on a newer driver; where the driver no longer exports a CUDA 12.0
   * form, its newer form stands in for it. `capabilities` reflects the choice.
   */
  readonly entryPoints?: EntryPointMode;
  /** Path of the driver library. Default `'libcuda.so.1'`, found by the system loader. */
  readonly libraryPath?: string;
}

/** What each adapter package exports. */
export type CreateDriver = (options?: DriverOptions) => Driver;

/** `cuMemPoolCreate` properties. */
export interface MemPoolProperties {
  /** `MemAllocationType.Pinned` (device or host memory) or `MemAllocationType.Managed`. */
  readonly allocationType: number;
  /** Where allocations live: a Device, Host or HostNuma location; for managed pools, Invalid/None means "no preference". */
  readonly location: MemLocation;
  /** `MemHandleType` bitmask the pool's allocations can be exported as (`PosixFileDescriptor` for IPC). */
  readonly handleTypes: number;
  /** Maximum pool size in bytes; 0 = the driver's default. */
  readonly maxSize: number;
}

/** `CUmemAccessDesc`: the access `flags` (`MemAccessFlags`) a location gets on a pool. */
export interface MemAccessDescriptor {
  readonly location: MemLocation;
  readonly flags: number;
}

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
