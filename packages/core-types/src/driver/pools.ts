// Stream-ordered memory pools: creating, configuring, sharing and allocating from them, and the
// CUDA 13.0 queries that name a location's pool.
import type { MemLocation, MemPoolAttribute } from './constants.js';
import type { DevicePointer, DriverHandle } from './handles.js';

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

/** Stream-ordered pools and their allocations. Part of {@link Driver}. */
export interface DriverPools {
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
}

/**
 * The CUDA 13.0 queries that name a location's memory pool without creating one (the pool of a
 * Host location: the driver's host pool, which cumem does not own). Part of {@link Driver}.
 */
export interface DriverPoolQueries {
  /**
   * `cuMemGetMemPool(&pool, &location, type)`: the current pool of `location` for
   * `allocationType` (`MemAllocationType.Pinned` or `.Managed`); the default pool until
   * `cuMemSetMemPool` changes it. Requires `capabilities.memoryPoolQueries`.
   */
  memGetMemPool(location: MemLocation, allocationType: number): DriverHandle;
  /**
   * `cuMemGetDefaultMemPool(&pool, &location, type)`: the driver's default pool of `location`
   * for `allocationType`. Requires `capabilities.memoryPoolQueries`.
   */
  memGetDefaultMemPool(location: MemLocation, allocationType: number): DriverHandle;
}
