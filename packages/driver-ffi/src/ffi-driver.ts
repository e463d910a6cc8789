// The Driver contract over koffi. Each member is a one-line forward to its area module with the
// loaded state; loading happens on the first member that needs libcuda and is retried never: a
// failure is kept and thrown again, so a half-loaded driver is never used.

import {
  type DevicePointer,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  type DriverCapabilities,
  type DriverHandle,
  type DriverOptions,
  type MemAccessDescriptor,
  type Memcpy2D,
  type Memcpy3D,
  type MemLocation,
  type MemPoolProperties,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import * as allocations from './ffi-allocations.js';
import * as copies from './ffi-copies.js';
import * as devices from './ffi-devices.js';
import * as managed from './ffi-managed.js';
import * as peers from './ffi-peers.js';
import * as pointers from './ffi-pointers.js';
import * as pools from './ffi-pools.js';
import * as staging from './ffi-staging.js';
import * as streams from './ffi-streams.js';
import { duplicateFileDescriptor } from './file-descriptors.js';
import { addressOf, detachView, hostView } from './host-memory.js';
import { loadDriver } from './library-loader.js';

/** The ffi adapter. Create it with `createDriver()`. */
export class FfiDriver implements Driver {
  readonly name = 'ffi';
  readonly contractVersion = DRIVER_CONTRACT_VERSION;
  #state: DriverState | undefined;
  #failure: unknown;
  readonly #libraryPath: string | undefined;
  readonly #legacy: boolean;

  constructor(options: DriverOptions = {}) {
    this.#libraryPath = options.libraryPath;
    this.#legacy = options.entryPoints === 'legacy';
  }

  #load(): DriverState {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      this.#state = loadDriver(this.#libraryPath, this.#legacy);
    } catch (error) {
      this.#failure = error;
      throw error;
    }
    return this.#state;
  }

  get driverVersion(): number {
    return (this.#state ?? this.#load()).driverVersion;
  }
  get capabilities(): DriverCapabilities {
    return (this.#state ?? this.#load()).capabilities;
  }

  // --- Devices and contexts ---------------------------------------------------------------
  deviceGetCount(): number {
    return devices.deviceGetCount(this.#state ?? this.#load());
  }
  deviceGetName(ordinal: number): string {
    return devices.deviceGetName(this.#state ?? this.#load(), ordinal);
  }
  deviceGetUuid(ordinal: number): Uint8Array {
    return devices.deviceGetUuid(this.#state ?? this.#load(), ordinal);
  }
  deviceTotalMem(ordinal: number): number {
    return devices.deviceTotalMem(this.#state ?? this.#load(), ordinal);
  }
  deviceGetAttribute(attribute: number, ordinal: number): number {
    return devices.deviceGetAttribute(this.#state ?? this.#load(), attribute, ordinal);
  }
  deviceGetDefaultMemPool(ordinal: number): DriverHandle {
    return devices.deviceGetDefaultMemPool(this.#state ?? this.#load(), ordinal);
  }
  deviceGetMemPool(ordinal: number): DriverHandle {
    return devices.deviceGetMemPool(this.#state ?? this.#load(), ordinal);
  }
  deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean {
    return peers.deviceCanAccessPeer(this.#state ?? this.#load(), ordinal, peerOrdinal);
  }
  deviceGetP2PAttribute(attribute: number, srcOrdinal: number, dstOrdinal: number): number {
    return peers.deviceGetP2PAttribute(this.#state ?? this.#load(), attribute, srcOrdinal, dstOrdinal);
  }
  primaryContextRetain(ordinal: number): DriverHandle {
    return devices.primaryContextRetain(this.#state ?? this.#load(), ordinal);
  }
  primaryContextRelease(ordinal: number): void {
    devices.primaryContextRelease(this.#state ?? this.#load(), ordinal);
  }
  contextSetCurrent(context: DriverHandle): void {
    devices.contextSetCurrent(this.#state ?? this.#load(), context);
  }
  contextGetCurrent(): DriverHandle {
    return devices.contextGetCurrent(this.#state ?? this.#load());
  }
  contextGetDevice(): number {
    return devices.contextGetDevice(this.#state ?? this.#load());
  }
  contextSynchronize(): void {
    devices.contextSynchronize(this.#state ?? this.#load());
  }
  memGetInfo(): { free: number; total: number } {
    return devices.memGetInfo(this.#state ?? this.#load());
  }
  contextGetStreamPriorityRange(): { least: number; greatest: number } {
    return devices.contextGetStreamPriorityRange(this.#state ?? this.#load());
  }
  contextEnablePeerAccess(peerContext: DriverHandle): void {
    peers.contextEnablePeerAccess(this.#state ?? this.#load(), peerContext);
  }

  // --- Streams and events ------------------------------------------------------------------
  streamCreate(flags: number, priority: number): DriverHandle {
    return streams.streamCreate(this.#state ?? this.#load(), flags, priority);
  }
  streamDestroy(stream: DriverHandle): void {
    streams.streamDestroy(this.#state ?? this.#load(), stream);
  }
  streamSynchronize(stream: DriverHandle): void {
    streams.streamSynchronize(this.#state ?? this.#load(), stream);
  }
  streamSynchronizeAsync(stream: DriverHandle): Promise<void> {
    try {
      return streams.streamSynchronizeAsync(this.#state ?? this.#load(), stream);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  streamQuery(stream: DriverHandle): boolean {
    return streams.streamQuery(this.#state ?? this.#load(), stream);
  }
  streamWaitEvent(stream: DriverHandle, event: DriverHandle): void {
    streams.streamWaitEvent(this.#state ?? this.#load(), stream, event);
  }
  eventCreate(flags: number): DriverHandle {
    return streams.eventCreate(this.#state ?? this.#load(), flags);
  }
  eventDestroy(event: DriverHandle): void {
    streams.eventDestroy(this.#state ?? this.#load(), event);
  }
  eventRecord(event: DriverHandle, stream: DriverHandle): void {
    streams.eventRecord(this.#state ?? this.#load(), event, stream);
  }
  eventSynchronize(event: DriverHandle): void {
    streams.eventSynchronize(this.#state ?? this.#load(), event);
  }
  eventSynchronizeAsync(event: DriverHandle): Promise<void> {
    try {
      return streams.eventSynchronizeAsync(this.#state ?? this.#load(), event);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  eventQuery(event: DriverHandle): boolean {
    return streams.eventQuery(this.#state ?? this.#load(), event);
  }
  eventElapsedTime(start: DriverHandle, end: DriverHandle): number {
    return streams.eventElapsedTime(this.#state ?? this.#load(), start, end);
  }

  // --- Stream-ordered pools -----------------------------------------------------------------
  memPoolCreate(properties: MemPoolProperties): DriverHandle {
    return pools.memPoolCreate(this.#state ?? this.#load(), properties);
  }
  memPoolDestroy(pool: DriverHandle): void {
    pools.memPoolDestroy(this.#state ?? this.#load(), pool);
  }
  memPoolSetAttribute(pool: DriverHandle, attribute: number, value: number): void {
    pools.memPoolSetAttribute(this.#state ?? this.#load(), pool, attribute, value);
  }
  memPoolGetAttribute(pool: DriverHandle, attribute: number): number {
    return pools.memPoolGetAttribute(this.#state ?? this.#load(), pool, attribute);
  }
  memPoolSetAccess(pool: DriverHandle, location: MemLocation, flags: number): void {
    pools.memPoolSetAccess(this.#state ?? this.#load(), pool, location, flags);
  }
  memPoolGetAccess(pool: DriverHandle, location: MemLocation): number {
    return pools.memPoolGetAccess(this.#state ?? this.#load(), pool, location);
  }
  memPoolTrimTo(pool: DriverHandle, minBytesToKeep: number): void {
    pools.memPoolTrimTo(this.#state ?? this.#load(), pool, minBytesToKeep);
  }
  memAllocFromPoolAsync(size: number, pool: DriverHandle, stream: DriverHandle): DevicePointer {
    return pools.memAllocFromPoolAsync(this.#state ?? this.#load(), size, pool, stream);
  }
  memFreeAsync(pointer: DevicePointer, stream: DriverHandle): void {
    pools.memFreeAsync(this.#state ?? this.#load(), pointer, stream);
  }
  memPoolExportToFileDescriptor(pool: DriverHandle): number {
    return pools.memPoolExportToFileDescriptor(this.#state ?? this.#load(), pool);
  }
  memPoolImportFromFileDescriptor(fd: number): DriverHandle {
    return pools.memPoolImportFromFileDescriptor(this.#state ?? this.#load(), fd);
  }
  memPoolExportPointer(pointer: DevicePointer): Uint8Array {
    return pools.memPoolExportPointer(this.#state ?? this.#load(), pointer);
  }
  memPoolImportPointer(pool: DriverHandle, data: Uint8Array): DevicePointer {
    return pools.memPoolImportPointer(this.#state ?? this.#load(), pool, data);
  }
  memPoolSetAccessMany(pool: DriverHandle, descriptors: readonly MemAccessDescriptor[]): void {
    peers.memPoolSetAccessMany(this.#state ?? this.#load(), pool, descriptors);
  }

  // --- Classic allocation ---------------------------------------------------------------------
  memAlloc(size: number): DevicePointer {
    return allocations.memAlloc(this.#state ?? this.#load(), size);
  }
  memFree(pointer: DevicePointer): void {
    allocations.memFree(this.#state ?? this.#load(), pointer);
  }
  memHostAlloc(size: number, flags: number): DevicePointer {
    return allocations.memHostAlloc(this.#state ?? this.#load(), size, flags);
  }
  memFreeHost(pointer: DevicePointer): void {
    allocations.memFreeHost(this.#state ?? this.#load(), pointer);
  }
  memAllocManaged(size: number, flags: number): DevicePointer {
    return allocations.memAllocManaged(this.#state ?? this.#load(), size, flags);
  }
  ipcGetMemHandle(pointer: DevicePointer): Uint8Array {
    return allocations.ipcGetMemHandle(this.#state ?? this.#load(), pointer);
  }
  ipcOpenMemHandle(handle: Uint8Array, flags: number): DevicePointer {
    return allocations.ipcOpenMemHandle(this.#state ?? this.#load(), handle, flags);
  }
  ipcCloseMemHandle(pointer: DevicePointer): void {
    allocations.ipcCloseMemHandle(this.#state ?? this.#load(), pointer);
  }
  ipcGetEventHandle(event: DriverHandle): Uint8Array {
    return allocations.ipcGetEventHandle(this.#state ?? this.#load(), event);
  }
  ipcOpenEventHandle(handle: Uint8Array): DriverHandle {
    return allocations.ipcOpenEventHandle(this.#state ?? this.#load(), handle);
  }

  // --- Copies and fills ---------------------------------------------------------------------
  memcpyAsync(dst: DevicePointer, src: DevicePointer, size: number, stream: DriverHandle): void {
    copies.memcpyAsync(this.#state ?? this.#load(), dst, src, size, stream);
  }
  memcpyHtoDAsync(dst: DevicePointer, src: ArrayBufferView, stream: DriverHandle): void {
    copies.memcpyHtoDAsync(this.#state ?? this.#load(), dst, src, stream);
  }
  memcpyDtoHAsync(dst: ArrayBufferView, src: DevicePointer, stream: DriverHandle): void {
    copies.memcpyDtoHAsync(this.#state ?? this.#load(), dst, src, stream);
  }
  memcpyHtoD(dst: DevicePointer, src: ArrayBufferView): void {
    copies.memcpyHtoD(this.#state ?? this.#load(), dst, src);
  }
  memcpyDtoH(dst: ArrayBufferView, src: DevicePointer): void {
    copies.memcpyDtoH(this.#state ?? this.#load(), dst, src);
  }
  memcpy2DAsync(copy: Memcpy2D, stream: DriverHandle): void {
    copies.memcpy2DAsync(this.#state ?? this.#load(), copy, stream);
  }
  memcpy3DAsync(copy: Memcpy3D, stream: DriverHandle): void {
    copies.memcpy3DAsync(this.#state ?? this.#load(), copy, stream);
  }
  memcpyBatchAsync(
    dsts: BigUint64Array,
    srcs: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void {
    copies.memcpyBatchAsync(this.#state ?? this.#load(), dsts, srcs, sizes, count, stream);
  }
  memsetD8Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    copies.memsetD8Async(this.#state ?? this.#load(), pointer, value, count, stream);
  }
  memsetD16Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    copies.memsetD16Async(this.#state ?? this.#load(), pointer, value, count, stream);
  }
  memsetD32Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    copies.memsetD32Async(this.#state ?? this.#load(), pointer, value, count, stream);
  }
  memcpyPeerAsync(...args: Parameters<Driver['memcpyPeerAsync']>): void {
    peers.memcpyPeerAsync(this.#state ?? this.#load(), ...args);
  }

  // --- Managed memory -------------------------------------------------------------------------
  memAdvise(pointer: DevicePointer, size: number, advice: number, location: MemLocation): void {
    managed.memAdvise(this.#state ?? this.#load(), pointer, size, advice, location);
  }
  memPrefetchAsync(pointer: DevicePointer, size: number, location: MemLocation, stream: DriverHandle): void {
    managed.memPrefetchAsync(this.#state ?? this.#load(), pointer, size, location, stream);
  }
  memPrefetchBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    locations: readonly MemLocation[],
    locationStarts: readonly number[],
    stream: DriverHandle,
  ): void {
    managed.memPrefetchBatchAsync(
      this.#state ?? this.#load(),
      pointers,
      sizes,
      count,
      locations,
      locationStarts,
      stream,
    );
  }
  memDiscardBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void {
    managed.memDiscardBatchAsync(this.#state ?? this.#load(), pointers, sizes, count, stream);
  }
  memDiscardAndPrefetchBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    locations: readonly MemLocation[],
    locationStarts: readonly number[],
    stream: DriverHandle,
  ): void {
    const state = this.#state ?? this.#load();
    managed.memDiscardAndPrefetchBatchAsync(state, pointers, sizes, count, locations, locationStarts, stream);
  }
  memRangeGetAttribute(pointer: DevicePointer, size: number, attribute: number): number {
    return managed.memRangeGetAttribute(this.#state ?? this.#load(), pointer, size, attribute);
  }
  memRangeGetAccessedBy(pointer: DevicePointer, size: number): number[] {
    return managed.memRangeGetAccessedBy(this.#state ?? this.#load(), pointer, size);
  }

  // --- Pointers -------------------------------------------------------------------------------
  pointerGetAttribute(pointer: DevicePointer, attribute: number): number {
    return pointers.pointerGetAttribute(this.#state ?? this.#load(), pointer, attribute);
  }
  pointerGetHandleAttribute(pointer: DevicePointer, attribute: number): bigint {
    return pointers.pointerGetHandleAttribute(this.#state ?? this.#load(), pointer, attribute);
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
  readonly memHostRegister: Driver['memHostRegister'] = (...a) =>
    staging.memHostRegister(this.#state ?? this.#load(), ...a);
  readonly memHostUnregister: Driver['memHostUnregister'] = (p) =>
    staging.memHostUnregister(this.#state ?? this.#load(), p);
  readonly stagedCopyHtoD: Driver['stagedCopyHtoD'] = (...a) =>
    staging.stagedCopyHtoD(this.#state ?? this.#load(), ...a);
  readonly stagedCopyDtoH: Driver['stagedCopyDtoH'] = (...a) =>
    staging.stagedCopyDtoH(this.#state ?? this.#load(), ...a);
}
