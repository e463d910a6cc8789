// The driver contract's compute members (modules, kernels, launches, occupancy): the CUDA 12.0
// library API, so one loaded image serves every device. Part of the Driver interface.
import type { DriverHandle } from './handles.js';

/** `CUfunction_attribute` values cumem reads or sets (cuda.h, CUDA 13.0). */
export const FunctionAttribute = {
  /** The most threads a block of this function can have (depends on its registers). */
  MaxThreadsPerBlock: 0,
  /** Statically allocated shared memory, in bytes. */
  SharedSizeBytes: 1,
  /** User constant memory, in bytes. */
  ConstSizeBytes: 2,
  /** Local memory per thread, in bytes. */
  LocalSizeBytes: 3,
  /** Registers per thread. */
  NumRegs: 4,
  /** PTX virtual architecture it was compiled for, 10 * major + minor (0 for a cubin without PTX). */
  PtxVersion: 5,
  /** Binary architecture, 10 * major + minor. */
  BinaryVersion: 6,
  /** The most dynamic shared memory a launch may ask for, in bytes (settable up to the device's opt-in limit). */
  MaxDynamicSharedSizeBytes: 8,
} as const;
export type FunctionAttribute = (typeof FunctionAttribute)[keyof typeof FunctionAttribute];

/** `CUdevice_attribute` values of launch limits (cuda.h, CUDA 13.0). */
export const LaunchDeviceAttribute = {
  MaxThreadsPerBlock: 1,
  MaxBlockDimX: 2,
  MaxBlockDimY: 3,
  MaxBlockDimZ: 4,
  MaxGridDimX: 5,
  MaxGridDimY: 6,
  MaxGridDimZ: 7,
  /** Shared memory a block may use without opting in, in bytes. */
  MaxSharedMemoryPerBlock: 8,
  /** Shared memory a block may use after raising `MaxDynamicSharedSizeBytes`, in bytes. */
  MaxSharedMemoryPerBlockOptin: 97,
  /** 1 when the device launches thread-block clusters (compute capability 9.0 and newer). */
  ClusterLaunch: 120,
} as const;
export type LaunchDeviceAttribute = (typeof LaunchDeviceAttribute)[keyof typeof LaunchDeviceAttribute];

/** Three dimensions (x, y, z), each a positive integer. */
export type Dimensions = readonly [number, number, number];

/** What `cuLaunchKernelEx` takes besides the function, its arguments and the stream. */
export interface KernelLaunchConfig {
  /** Grid size in blocks. */
  readonly grid: Dimensions;
  /** Block size in threads. */
  readonly block: Dimensions;
  /** Dynamic shared memory per block, in bytes. */
  readonly sharedMemBytes: number;
  /** Cluster size in blocks (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), or null to launch without clusters. */
  readonly cluster: Dimensions | null;
}

/** `cuFuncGetParamInfo`: where one kernel parameter sits in the parameter buffer. */
export interface KernelParameterInfo {
  /** Offset in bytes from the start of the parameter buffer. */
  readonly offset: number;
  /** Size in bytes. */
  readonly size: number;
}

/**
 * Modules, kernels and launches. Handles: `CUlibrary`, `CUkernel` (context-independent) and
 * `CUfunction` (the kernel in one context, from {@link DriverCompute.kernelGetFunction}).
 * As elsewhere in the contract nothing here validates user input: `@cumem/compute` does.
 */
export interface DriverCompute {
  /**
   * `cuLibraryLoadData` with no JIT or library options: loads a PTX (NUL-terminated text), cubin
   * or fatbin image for every device. The driver reads the image without being told its size:
   * the caller checks that it is whole (a cubin's ELF headers, a fatbin's header) first.
   */
  libraryLoadData(image: Uint8Array): DriverHandle;
  /** `cuLibraryUnload`. Kernels and functions of the library become invalid. */
  libraryUnload(library: DriverHandle): void;
  /** `cuLibraryGetKernel`: the kernel named `name` (its mangled name for C++). `CUDA_ERROR_NOT_FOUND` when absent. */
  libraryGetKernel(library: DriverHandle, name: string): DriverHandle;
  /** `cuKernelGetFunction`: the kernel's `CUfunction` in the calling thread's current context (loaded there on first use). */
  kernelGetFunction(kernel: DriverHandle): DriverHandle;
  /** `cuFuncGetAttribute`. */
  funcGetAttribute(attribute: FunctionAttribute | number, fn: DriverHandle): number;
  /** `cuFuncSetAttribute` (e.g. `MaxDynamicSharedSizeBytes` before a launch asking for more than 48 KiB). */
  funcSetAttribute(attribute: FunctionAttribute | number, fn: DriverHandle, value: number): void;
  /**
   * `cuFuncGetParamInfo` (CUDA 12.4): parameter `index`'s offset and size, or null past the
   * last parameter (the driver's `CUDA_ERROR_INVALID_VALUE` there). Requires
   * `capabilities.kernelParameterInfo`.
   */
  funcGetParamInfo(fn: DriverHandle, index: number): KernelParameterInfo | null;
  /**
   * `cuLaunchKernelEx`: queues `fn` on `stream`. Parameter `i` is read from `argumentBytes` at
   * `argumentOffsets[i]` (`kernelParams[i]` points there), for `argumentOffsets.length`
   * parameters; the driver copies them before returning, so `argumentBytes` may be reused.
   */
  launchKernelEx(
    fn: DriverHandle,
    config: KernelLaunchConfig,
    argumentBytes: Uint8Array,
    argumentOffsets: Uint32Array,
    stream: DriverHandle,
  ): void;
  /** `cuOccupancyMaxActiveBlocksPerMultiprocessor`: blocks of `blockSize` threads that fit on one multiprocessor at once. */
  occupancyMaxActiveBlocksPerMultiprocessor(
    fn: DriverHandle,
    blockSize: number,
    dynamicSharedMemBytes: number,
  ): number;
  /**
   * `cuOccupancyMaxPotentialBlockSize` with a fixed dynamic shared memory size (no callback):
   * the block size that maximizes occupancy, at most `blockSizeLimit` (0: the function's limit),
   * and the smallest grid that reaches it.
   */
  occupancyMaxPotentialBlockSize(
    fn: DriverHandle,
    dynamicSharedMemBytes: number,
    blockSizeLimit: number,
  ): { minGridSize: number; blockSize: number };
}
