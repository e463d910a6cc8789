import {
  checkAddress,
  checkSize,
  type DevicePointer,
  type DriverHandle,
  IPC_HANDLE_SIZE,
  MemAccessFlags,
  MemAllocationType,
  type MemLocation,
  MemLocationType,
  type MemPoolProperties,
} from '@cumem/core-types';
import { cudaError } from './cuda-errors.js';
import { isPoolLocation } from './pool-location.js';
import { accessKey, PoolState } from './pool-state.js';
import { ReferenceHostRegistration } from './reference-host-registration.js';

/** The stream-ordered pool and interprocess members of the reference driver. */
export abstract class ReferencePools extends ReferenceHostRegistration {
  // --- Pools -------------------------------------------------------------------------------
  memPoolCreate(properties: MemPoolProperties): DriverHandle {
    const call = 'cuMemPoolCreate';
    const { allocationType, location, handleTypes, maxSize } = properties;
    const invalid = () => cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (allocationType !== MemAllocationType.Pinned && allocationType !== MemAllocationType.Managed)
      throw invalid();
    if (handleTypes !== 0 && handleTypes !== 1) throw invalid();
    if (!Number.isSafeInteger(maxSize) || maxSize < 0) throw invalid();
    this.state.refusePoolKind(properties, call);
    const managed = allocationType === MemAllocationType.Managed;
    if (!isPoolLocation(location, managed, this.state.settings.deviceCount)) throw invalid();
    // cuda.h: pools of Host location are not IPC capable; handleTypes must be 0.
    if (location.type === MemLocationType.Host && handleTypes !== 0) throw invalid();
    const device = location.type === MemLocationType.Device ? location.id : -1;
    if (managed && handleTypes !== 0) throw invalid();
    // The reference cannot share memory across processes, and says so as a device without IPC handle types would.
    if (handleTypes !== 0) throw cudaError(call, 'CUDA_ERROR_NOT_SUPPORTED');
    const pool = new PoolState(
      this.state.newHandle(),
      { allocationType, locationType: location.type, locationId: location.id, handleTypes, maxSize, device },
      false,
    );
    this.state.pools.set(pool.handle, pool);
    return pool.handle;
  }
  memPoolDestroy(pool: DriverHandle): void {
    const state = this.state.pool(pool, 'cuMemPoolDestroy');
    // cuda.h: a device's default pool cannot be destroyed.
    if (state.isDefault) throw cudaError('cuMemPoolDestroy', 'CUDA_ERROR_INVALID_VALUE');
    // Outstanding allocations stay valid; the pool goes when the last is freed.
    state.destroyed = true;
    if (state.live.size === 0) this.state.pools.delete(pool);
  }
  memPoolSetAttribute(pool: DriverHandle, attribute: number, value: number): void {
    this.state.pool(pool, 'cuMemPoolSetAttribute').setAttribute(attribute, value);
  }
  memPoolGetAttribute(pool: DriverHandle, attribute: number): number {
    return this.state.pool(pool, 'cuMemPoolGetAttribute').getAttribute(attribute);
  }
  memPoolSetAccess(pool: DriverHandle, location: MemLocation, flags: number): void {
    const call = 'cuMemPoolSetAccess';
    const state = this.state.pool(pool, call);
    const owner = this.accessOwner(state, location, call);
    const valid =
      flags === MemAccessFlags.None || flags === MemAccessFlags.Read || flags === MemAccessFlags.ReadWrite;
    // The owner's read-write access cannot be taken away.
    if (!valid || (owner && flags !== MemAccessFlags.ReadWrite))
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (!owner) state.setAccess(accessKey(location.type, location.id), flags);
  }
  memPoolGetAccess(pool: DriverHandle, location: MemLocation): number {
    const call = 'cuMemPoolGetAccess';
    const state = this.state.pool(pool, call);
    const owner = this.accessOwner(state, location, call);
    return state.getAccess(accessKey(location.type, location.id), owner);
  }
  memPoolTrimTo(pool: DriverHandle, minBytesToKeep: number): void {
    const state = this.state.pool(pool, 'cuMemPoolTrimTo');
    if (!Number.isSafeInteger(minBytesToKeep) || minBytesToKeep < 0)
      throw cudaError('cuMemPoolTrimTo', 'CUDA_ERROR_INVALID_VALUE');
    state.trimTo(minBytesToKeep);
  }
  memAllocFromPoolAsync(size: number, pool: DriverHandle, stream: DriverHandle): DevicePointer {
    const call = 'cuMemAllocFromPoolAsync';
    // The adapters' argument rules on this hot path (core-types checkSize / checkAddress).
    checkSize(size, 'size');
    pool = checkAddress(pool, 'pool');
    stream = checkAddress(stream, 'stream');
    const context = this.state.checkStream(stream, call);
    const state = this.state.pool(pool, call);
    const contextDevice = this.state.contexts.indexOf(context);
    const device = state.kind === 'device' ? state.description.device : contextDevice;
    return this.state.allocate(size, state.kind, 'pool', device, call, state).start;
  }
  memFreeAsync(pointer: DevicePointer, stream: DriverHandle): void {
    const call = 'cuMemFreeAsync';
    pointer = checkAddress(pointer, 'pointer');
    stream = checkAddress(stream, 'stream');
    this.state.checkStream(stream, call);
    const allocation = this.state.allocationAt(pointer, call);
    if (allocation.origin !== 'pool') throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    this.state.release(allocation);
  }

  // Devices may be granted access to any pool; the owner is the pool's device, or the host for host pools.
  protected accessOwner(pool: PoolState, location: MemLocation, call: string): boolean {
    this.state.refuseNumaInLegacyMode(location, call);
    if (location.type === MemLocationType.Device) {
      if (
        !Number.isInteger(location.id) ||
        location.id < 0 ||
        location.id >= this.state.settings.deviceCount
      ) {
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
      }
      return pool.kind !== 'device' || pool.description.device === location.id;
    }
    if (location.type === MemLocationType.Host || location.type === MemLocationType.HostNuma) {
      if (pool.kind === 'device') throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
      return true;
    }
    throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
  }

  // --- Interprocess: not emulated ----------------------------------------------------------
  memPoolExportToFileDescriptor(_pool: DriverHandle): number {
    throw cudaError('cuMemPoolExportToShareableHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  memPoolImportFromFileDescriptor(_fd: number): DriverHandle {
    throw cudaError('cuMemPoolImportFromShareableHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  memPoolExportPointer(_pointer: DevicePointer): Uint8Array {
    throw cudaError('cuMemPoolExportPointer', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  memPoolImportPointer(_pool: DriverHandle, _data: Uint8Array): DevicePointer {
    throw cudaError('cuMemPoolImportPointer', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  ipcGetMemHandle(_pointer: DevicePointer): Uint8Array {
    throw cudaError('cuIpcGetMemHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  ipcOpenMemHandle(_handle: Uint8Array, _flags: number): DevicePointer {
    throw cudaError('cuIpcOpenMemHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  ipcCloseMemHandle(_pointer: DevicePointer): void {
    throw cudaError('cuIpcCloseMemHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  ipcGetEventHandle(_event: DriverHandle): Uint8Array {
    throw cudaError('cuIpcGetEventHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
  ipcOpenEventHandle(handle: Uint8Array): DriverHandle {
    // Bad input is refused before the driver would be asked, as the adapters do.
    if (!(handle instanceof Uint8Array) || handle.byteLength !== IPC_HANDLE_SIZE) {
      throw new RangeError(`ipcOpenEventHandle: handle must hold ${IPC_HANDLE_SIZE} bytes`);
    }
    throw cudaError('cuIpcOpenEventHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }
}
