// The Driver contract over koffi. Each member is a one-line forward to its area module with the
// loaded state. This file has the members that manage memory; loading and the device, context,
// stream and event members are in ffi-device-members.ts.

import {
  type DevicePointer,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  type DriverHandle,
  type MemAccessDescriptor,
  type Memcpy2D,
  type Memcpy3D,
  type MemLocation,
  type MemPoolProperties,
} from '@cumem/core-types';
import * as allocations from './ffi-allocations.js';
import * as compute from './ffi-compute.js';
import * as copies from './ffi-copies.js';
import { load, loaded } from './ffi-device-members.js';
import * as managed from './ffi-managed.js';
import * as exchange from './ffi-native-exchange.js';
import * as peers from './ffi-peers.js';
import * as pointers from './ffi-pointers.js';
import * as poolQueries from './ffi-pool-queries.js';
import * as pools from './ffi-pools.js';
import * as staging from './ffi-staging.js';
import { FfiVirtualMemoryMembers } from './ffi-virtual-memory-members.js';
import { duplicateFileDescriptor } from './file-descriptors.js';
import { addressOf, detachView, hostView } from './host-memory.js';

/** The ffi adapter. Create it with `createDriver()`. */
export class FfiDriver extends FfiVirtualMemoryMembers implements Driver {
  readonly name = 'ffi';
  readonly contractVersion = DRIVER_CONTRACT_VERSION;

  // --- Stream-ordered pools -----------------------------------------------------------------
  memGetMemPool(location: MemLocation, allocationType: number): DriverHandle {
    return poolQueries.memGetMemPool(this[loaded] ?? this[load](), location, allocationType);
  }
  memGetDefaultMemPool(location: MemLocation, allocationType: number): DriverHandle {
    return poolQueries.memGetDefaultMemPool(this[loaded] ?? this[load](), location, allocationType);
  }
  memPoolCreate(properties: MemPoolProperties): DriverHandle {
    return pools.memPoolCreate(this[loaded] ?? this[load](), properties);
  }
  memPoolDestroy(pool: DriverHandle): void {
    pools.memPoolDestroy(this[loaded] ?? this[load](), pool);
  }
  memPoolSetAttribute(pool: DriverHandle, attribute: number, value: number): void {
    pools.memPoolSetAttribute(this[loaded] ?? this[load](), pool, attribute, value);
  }
  memPoolGetAttribute(pool: DriverHandle, attribute: number): number {
    return pools.memPoolGetAttribute(this[loaded] ?? this[load](), pool, attribute);
  }
  memPoolSetAccess(pool: DriverHandle, location: MemLocation, flags: number): void {
    pools.memPoolSetAccess(this[loaded] ?? this[load](), pool, location, flags);
  }
  memPoolGetAccess(pool: DriverHandle, location: MemLocation): number {
    return pools.memPoolGetAccess(this[loaded] ?? this[load](), pool, location);
  }
  memPoolTrimTo(pool: DriverHandle, minBytesToKeep: number): void {
    pools.memPoolTrimTo(this[loaded] ?? this[load](), pool, minBytesToKeep);
  }
  // The hot pair: plain forwards; ffi-pools.ts reads the loaded state itself (see there).
  memAllocFromPoolAsync(size: number, pool: DriverHandle, stream: DriverHandle): DevicePointer {
    return pools.memAllocFromPoolAsync(this, size, pool, stream);
  }
  memFreeAsync(pointer: DevicePointer, stream: DriverHandle): void {
    pools.memFreeAsync(this, pointer, stream);
  }
  memPoolExportToFileDescriptor(pool: DriverHandle): number {
    return pools.memPoolExportToFileDescriptor(this[loaded] ?? this[load](), pool);
  }
  memPoolImportFromFileDescriptor(fd: number): DriverHandle {
    return pools.memPoolImportFromFileDescriptor(this[loaded] ?? this[load](), fd);
  }
  memPoolExportPointer(pointer: DevicePointer): Uint8Array {
    return pools.memPoolExportPointer(this[loaded] ?? this[load](), pointer);
  }
  memPoolImportPointer(pool: DriverHandle, data: Uint8Array): DevicePointer {
    return pools.memPoolImportPointer(this[loaded] ?? this[load](), pool, data);
  }
  memPoolSetAccessMany(pool: DriverHandle, descriptors: readonly MemAccessDescriptor[]): void {
    peers.memPoolSetAccessMany(this[loaded] ?? this[load](), pool, descriptors);
  }

  // --- Classic allocation ---------------------------------------------------------------------
  memAlloc(size: number): DevicePointer {
    return allocations.memAlloc(this[loaded] ?? this[load](), size);
  }
  memFree(pointer: DevicePointer): void {
    allocations.memFree(this[loaded] ?? this[load](), pointer);
  }
  memHostAlloc(size: number, flags: number): DevicePointer {
    return allocations.memHostAlloc(this[loaded] ?? this[load](), size, flags);
  }
  memFreeHost(pointer: DevicePointer): void {
    allocations.memFreeHost(this[loaded] ?? this[load](), pointer);
  }
  memAllocManaged(size: number, flags: number): DevicePointer {
    return allocations.memAllocManaged(this[loaded] ?? this[load](), size, flags);
  }
  ipcGetMemHandle(pointer: DevicePointer): Uint8Array {
    return allocations.ipcGetMemHandle(this[loaded] ?? this[load](), pointer);
  }
  ipcOpenMemHandle(handle: Uint8Array, flags: number): DevicePointer {
    return allocations.ipcOpenMemHandle(this[loaded] ?? this[load](), handle, flags);
  }
  ipcCloseMemHandle(pointer: DevicePointer): void {
    allocations.ipcCloseMemHandle(this[loaded] ?? this[load](), pointer);
  }
  ipcGetEventHandle(event: DriverHandle): Uint8Array {
    return allocations.ipcGetEventHandle(this[loaded] ?? this[load](), event);
  }
  ipcOpenEventHandle(handle: Uint8Array): DriverHandle {
    return allocations.ipcOpenEventHandle(this[loaded] ?? this[load](), handle);
  }

  // --- Copies and fills ---------------------------------------------------------------------
  memcpyAsync(dst: DevicePointer, src: DevicePointer, size: number, stream: DriverHandle): void {
    copies.memcpyAsync(this[loaded] ?? this[load](), dst, src, size, stream);
  }
  memcpyHtoDAsync(dst: DevicePointer, src: ArrayBufferView, stream: DriverHandle): void {
    copies.memcpyHtoDAsync(this[loaded] ?? this[load](), dst, src, stream);
  }
  memcpyDtoHAsync(dst: ArrayBufferView, src: DevicePointer, stream: DriverHandle): void {
    copies.memcpyDtoHAsync(this[loaded] ?? this[load](), dst, src, stream);
  }
  memcpyHtoD(dst: DevicePointer, src: ArrayBufferView): void {
    copies.memcpyHtoD(this[loaded] ?? this[load](), dst, src);
  }
  memcpyDtoH(dst: ArrayBufferView, src: DevicePointer): void {
    copies.memcpyDtoH(this[loaded] ?? this[load](), dst, src);
  }
  memcpy2DAsync(copy: Memcpy2D, stream: DriverHandle): void {
    copies.memcpy2DAsync(this[loaded] ?? this[load](), copy, stream);
  }
  memcpy3DAsync(copy: Memcpy3D, stream: DriverHandle): void {
    copies.memcpy3DAsync(this[loaded] ?? this[load](), copy, stream);
  }
  // Members with long parameter lists take their types from the contract (one closure per
  // driver, made here; nothing per call).
  readonly memcpyBatchAsync: Driver['memcpyBatchAsync'] = (dsts, srcs, sizes, count, stream) =>
    copies.memcpyBatchAsync(this[loaded] ?? this[load](), dsts, srcs, sizes, count, stream);
  memsetD8Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    copies.memsetD8Async(this[loaded] ?? this[load](), pointer, value, count, stream);
  }
  memsetD16Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    copies.memsetD16Async(this[loaded] ?? this[load](), pointer, value, count, stream);
  }
  memsetD32Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    copies.memsetD32Async(this[loaded] ?? this[load](), pointer, value, count, stream);
  }
  readonly memcpyPeerAsync: Driver['memcpyPeerAsync'] = (dst, dstContext, src, srcContext, size, stream) =>
    peers.memcpyPeerAsync(this[loaded] ?? this[load](), dst, dstContext, src, srcContext, size, stream);

  // --- Managed memory -------------------------------------------------------------------------
  memAdvise(pointer: DevicePointer, size: number, advice: number, location: MemLocation): void {
    managed.memAdvise(this[loaded] ?? this[load](), pointer, size, advice, location);
  }
  memPrefetchAsync(pointer: DevicePointer, size: number, location: MemLocation, stream: DriverHandle): void {
    managed.memPrefetchAsync(this[loaded] ?? this[load](), pointer, size, location, stream);
  }
  readonly memPrefetchBatchAsync: Driver['memPrefetchBatchAsync'] = (ptrs, sizes, n, locs, starts, stream) =>
    managed.memPrefetchBatchAsync(this[loaded] ?? this[load](), ptrs, sizes, n, locs, starts, stream);
  readonly memDiscardBatchAsync: Driver['memDiscardBatchAsync'] = (pointers, sizes, count, stream) =>
    managed.memDiscardBatchAsync(this[loaded] ?? this[load](), pointers, sizes, count, stream);
  // (pointers, sizes, count, locations, locationStarts, stream), as memPrefetchBatchAsync.
  readonly memDiscardAndPrefetchBatchAsync: Driver['memDiscardAndPrefetchBatchAsync'] = (p, z, n, l, k, s) =>
    managed.memDiscardAndPrefetchBatchAsync(this[loaded] ?? this[load](), p, z, n, l, k, s);
  memRangeGetAttribute(pointer: DevicePointer, size: number, attribute: number): number {
    return managed.memRangeGetAttribute(this[loaded] ?? this[load](), pointer, size, attribute);
  }
  memRangeGetAccessedBy(pointer: DevicePointer, size: number): number[] {
    return managed.memRangeGetAccessedBy(this[loaded] ?? this[load](), pointer, size);
  }

  // --- Pointers -------------------------------------------------------------------------------
  pointerGetAttribute(pointer: DevicePointer, attribute: number): number {
    return pointers.pointerGetAttribute(this[loaded] ?? this[load](), pointer, attribute);
  }
  pointerGetHandleAttribute(pointer: DevicePointer, attribute: number): bigint {
    return pointers.pointerGetHandleAttribute(this[loaded] ?? this[load](), pointer, attribute);
  }
  hostView(pointer: DevicePointer, size: number): Uint8Array {
    return hostView(pointer, size);
  }
  addressOf(view: ArrayBufferView | ArrayBuffer): DevicePointer {
    return addressOf(view);
  }
  detachView(view: ArrayBuffer): boolean {
    return detachView(view);
  }
  duplicateFileDescriptor(fd: number): number {
    return duplicateFileDescriptor(fd);
  }
  readonly nativeReleaseFunction: Driver['nativeReleaseFunction'] = () =>
    exchange.nativeReleaseFunction(this[loaded] ?? this[load]());
  readonly readNativeMemory: Driver['readNativeMemory'] = exchange.readNativeMemory;
  readonly callNativeFunction: Driver['callNativeFunction'] = exchange.callNativeFunction;
  readonly memHostRegister: Driver['memHostRegister'] = (...a) =>
    staging.memHostRegister(this[loaded] ?? this[load](), ...a);
  readonly memHostUnregister: Driver['memHostUnregister'] = (p) =>
    staging.memHostUnregister(this[loaded] ?? this[load](), p);
  readonly stagedCopyHtoD: Driver['stagedCopyHtoD'] = (...a) =>
    staging.stagedCopyHtoD(this[loaded] ?? this[load](), ...a);
  readonly stagedCopyDtoH: Driver['stagedCopyDtoH'] = (...a) =>
    staging.stagedCopyDtoH(this[loaded] ?? this[load](), ...a);

  // --- Compute --------------------------------------------------------------------------------
  readonly libraryLoadData: Driver['libraryLoadData'] = (image) =>
    compute.libraryLoadData(this[loaded] ?? this[load](), image);
  readonly libraryUnload: Driver['libraryUnload'] = (l) =>
    compute.libraryUnload(this[loaded] ?? this[load](), l);
  readonly libraryGetKernel: Driver['libraryGetKernel'] = (l, name) =>
    compute.libraryGetKernel(this[loaded] ?? this[load](), l, name);
  readonly kernelGetFunction: Driver['kernelGetFunction'] = (k) =>
    compute.kernelGetFunction(this[loaded] ?? this[load](), k);
  readonly funcGetAttribute: Driver['funcGetAttribute'] = (a, f) =>
    compute.funcGetAttribute(this[loaded] ?? this[load](), a, f);
  readonly funcSetAttribute: Driver['funcSetAttribute'] = (a, f, v) =>
    compute.funcSetAttribute(this[loaded] ?? this[load](), a, f, v);
  readonly funcGetParamInfo: Driver['funcGetParamInfo'] = (f, i) =>
    compute.funcGetParamInfo(this[loaded] ?? this[load](), f, i);
  readonly launchKernelEx: Driver['launchKernelEx'] = (f, config, bytes, offsets, stream) =>
    compute.launchKernelEx(this[loaded] ?? this[load](), f, config, bytes, offsets, stream);
  readonly occupancyMaxActiveBlocksPerMultiprocessor: Driver['occupancyMaxActiveBlocksPerMultiprocessor'] = (
    f,
    b,
    s,
  ) => compute.occupancyMaxActiveBlocksPerMultiprocessor(this[loaded] ?? this[load](), f, b, s);
  readonly occupancyMaxPotentialBlockSize: Driver['occupancyMaxPotentialBlockSize'] = (f, s, l) =>
    compute.occupancyMaxPotentialBlockSize(this[loaded] ?? this[load](), f, s, l);
}
