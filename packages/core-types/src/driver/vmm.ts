// The virtual memory management (VMM) members of the driver contract: reserve address ranges,
// create physical chunks, map them, set per-device access, share chunks through POSIX file
// descriptors. Part of the Driver interface (driver.ts).
import type { MemLocation } from './constants.js';
import type { DevicePointer, DriverHandle } from './handles.js';
import type { MemAccessDescriptor } from './pools.js';

/** `CUmemAllocationGranularity_flags`. */
export const MemAllocationGranularity = { Minimum: 0, Recommended: 1 } as const;
export type MemAllocationGranularity =
  (typeof MemAllocationGranularity)[keyof typeof MemAllocationGranularity];

/** `CUdevice_attribute` values of VMM (cuda.h 13.0). */
export const VirtualMemoryDeviceAttribute = {
  /** 1 when the device supports `cuMemAddressReserve` / `cuMemCreate` / `cuMemMap`. */
  VirtualMemoryManagementSupported: 102,
  /** 1 when `cuMemCreate` can make chunks exportable as POSIX file descriptors. */
  HandleTypePosixFileDescriptorSupported: 103,
  /** 1 when VMM chunks can be GPUDirect RDMA capable. */
  GpuDirectRdmaWithCudaVmmSupported: 110,
} as const;

/**
 * `CUmemAllocationProp` (32 bytes in cuda.h): what `cuMemCreate` makes and
 * `cuMemGetAllocationGranularity` is asked about. `win32HandleMetaData` is always null and
 * `allocFlags.compressionType` always 0 (not compressible).
 */
export interface MemAllocationProperties {
  /** `CUmemAllocationType`: `MemAllocationType.Pinned` (1). */
  readonly allocationType: number;
  /** `CUmemAllocationHandleType` bits the chunk can be exported as (`MemHandleType`). */
  readonly requestedHandleTypes: number;
  /** Where the physical memory is. */
  readonly location: MemLocation;
  /** `allocFlags.gpuDirectRDMACapable`. */
  readonly gpuDirectRdmaCapable: boolean;
  /** `allocFlags.usage` (0 unless the driver documents another). */
  readonly usage: number;
}

/**
 * The VMM entry points (`cuMemAddressReserve` and friends, CUDA 10.2+, so every supported driver
 * has them). Sizes and offsets must be multiples of the granularity
 * ({@link memGetAllocationGranularity}); the driver refuses others with
 * `CUDA_ERROR_INVALID_VALUE`. `@cumem/memory`'s `VirtualMemoryResource` checks them first.
 */
export interface DriverVirtualMemory {
  /** `cuMemGetAllocationGranularity`, in bytes. `option`: `MemAllocationGranularity`. */
  memGetAllocationGranularity(properties: MemAllocationProperties, option: number): number;
  /**
   * `cuMemAddressReserve(size, alignment, addressHint, 0)`: a range of `size` bytes of virtual
   * address space, no memory behind it. `addressHint` `0n` lets the driver choose; a hint it
   * cannot honour is not an error (it returns another address).
   */
  memAddressReserve(size: number, alignment: number, addressHint: DevicePointer): DevicePointer;
  /** `cuMemAddressFree`: the whole range {@link memAddressReserve} returned; nothing mapped in it. */
  memAddressFree(pointer: DevicePointer, size: number): void;
  /** `cuMemCreate(size, properties, 0)`: a physical chunk, owned by the caller ({@link memRelease}). */
  memCreate(size: number, properties: MemAllocationProperties): DriverHandle;
  /** `cuMemRelease`: the memory goes once no mapping uses it. */
  memRelease(handle: DriverHandle): void;
  /** `cuMemMap(pointer, size, offset, handle, 0)`: `size` bytes of the chunk from `offset` at `pointer`. */
  memMap(pointer: DevicePointer, size: number, offset: number, handle: DriverHandle): void;
  /** `cuMemUnmap`: not stream-ordered; the caller makes sure no work uses the range. */
  memUnmap(pointer: DevicePointer, size: number): void;
  /** `cuMemSetAccess` with every descriptor in one call. An empty list makes no driver call. */
  memSetAccess(pointer: DevicePointer, size: number, descriptors: readonly MemAccessDescriptor[]): void;
  /** `cuMemGetAccess`: the `MemAccessFlags` `location` has on the mapped address `pointer`. */
  memGetAccess(pointer: DevicePointer, location: MemLocation): number;
  /** `cuMemExportToShareableHandle` as a POSIX file descriptor, owned by the caller (close it with `fs.closeSync`). */
  memExportToFileDescriptor(handle: DriverHandle): number;
  /** `cuMemImportFromShareableHandle` from a POSIX file descriptor; the descriptor stays the caller's. */
  memImportFromFileDescriptor(fd: number): DriverHandle;
  /** `cuMemGetAllocationPropertiesFromHandle`. */
  memGetAllocationPropertiesFromHandle(handle: DriverHandle): MemAllocationProperties;
}
