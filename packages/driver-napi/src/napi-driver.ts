import {
  checkStagedCopyOptions,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  type DriverCapabilities,
  type DriverOptions,
  type DriverUnavailableError,
} from '@cumem/core-types';
import {
  assembleDriver,
  checkDriverOptions,
  checkFileDescriptor,
  type DriverAccessors,
  deriveCapabilities,
  duplicateDescriptorError,
} from '@cumem/driver-kit';
import { computeMembers } from './compute-members.js';
import { type AddonLoadResult, defaultAddon } from './load-addon.js';
import { packAccessDescriptors, virtualMemoryMembers } from './napi-virtual-memory.js';
import type { NativeBinding } from './native-binding.js';

/** The addon's question at load: what a driver of this version, with these entry points, can do. */
function capabilitiesOf(driverVersion: number, resolved: string[], legacy: boolean): DriverCapabilities {
  return deriveCapabilities({
    resolved,
    driverVersion,
    mode: legacy ? 'legacy' : 'auto',
    interprocess: process.platform === 'linux',
  });
}

/** The Promise form of a failure, so `*Async` members always return a Promise. */
function settle<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The Driver over one native binding. Members with the contract's exact signature ARE the
 * addon's functions (no JS frame in between); the others are one-line forwards that split a
 * `MemLocation` into two integers, or (memAllocFromPoolAsync) read the result the addon stored.
 * driver-kit's assembleDriver freezes it in the shape the FFI adapter has too (it adds the
 * accessors after the literal, which keeps member reads fast).
 */
function driverFromBinding(b: NativeBinding): Driver {
  let capabilities: DriverCapabilities | undefined;
  // The pool allocation's pointer comes back through this array, read here: a bigint read from a
  // typed array in JS is cheaper to make than one the addon makes through N-API. Measured with
  // scripts/bench-hot-paths.mjs; see the README's Performance section.
  const pointerResult = b.pointerResult;
  const allocateFromPool = b.memAllocFromPoolAsync;
  const members = {
    name: 'napi',
    contractVersion: DRIVER_CONTRACT_VERSION,
    deviceGetCount: b.deviceGetCount,
    deviceGetName: b.deviceGetName,
    deviceGetUuid: b.deviceGetUuid,
    deviceTotalMem: b.deviceTotalMem,
    deviceGetAttribute: b.deviceGetAttribute,
    deviceGetDefaultMemPool: b.deviceGetDefaultMemPool,
    deviceGetMemPool: b.deviceGetMemPool,
    deviceCanAccessPeer: b.deviceCanAccessPeer,
    deviceGetP2PAttribute: b.deviceGetP2PAttribute,
    primaryContextRetain: b.primaryContextRetain,
    primaryContextRelease: b.primaryContextRelease,
    contextSetCurrent: b.contextSetCurrent,
    contextGetCurrent: b.contextGetCurrent,
    contextGetDevice: b.contextGetDevice,
    contextSynchronize: b.contextSynchronize,
    memGetInfo: b.memGetInfo,
    contextGetStreamPriorityRange: b.contextGetStreamPriorityRange,
    contextEnablePeerAccess: b.contextEnablePeerAccess,
    streamCreate: b.streamCreate,
    streamDestroy: b.streamDestroy,
    streamSynchronize: b.streamSynchronize,
    streamSynchronizeAsync: (stream) => settle(() => b.streamSynchronizeAsync(stream)),
    streamQuery: b.streamQuery,
    streamWaitEvent: b.streamWaitEvent,
    eventCreate: b.eventCreate,
    eventDestroy: b.eventDestroy,
    eventRecord: b.eventRecord,
    eventSynchronize: b.eventSynchronize,
    eventSynchronizeAsync: (event) => settle(() => b.eventSynchronizeAsync(event)),
    eventQuery: b.eventQuery,
    eventElapsedTime: b.eventElapsedTime,
    memPoolCreate: (p) =>
      b.memPoolCreate(p.allocationType, p.location.type, p.location.id, p.handleTypes, p.maxSize),
    memPoolDestroy: b.memPoolDestroy,
    memPoolSetAttribute: b.memPoolSetAttribute,
    memPoolGetAttribute: b.memPoolGetAttribute,
    memPoolSetAccess: (pool, location, flags) => b.memPoolSetAccess(pool, location.type, location.id, flags),
    memPoolGetAccess: (pool, location) => b.memPoolGetAccess(pool, location.type, location.id),
    memGetMemPool: (location, type) => b.memGetMemPool(location.type, location.id, type),
    memGetDefaultMemPool: (location, type) => b.memGetDefaultMemPool(location.type, location.id, type),
    memPoolTrimTo: b.memPoolTrimTo,
    memAllocFromPoolAsync: (size, pool, stream) => {
      allocateFromPool(size, pool, stream);
      return pointerResult[0] as bigint;
    },
    memFreeAsync: b.memFreeAsync,
    memPoolExportToFileDescriptor: b.memPoolExportToFileDescriptor,
    memPoolImportFromFileDescriptor: b.memPoolImportFromFileDescriptor,
    memPoolExportPointer: b.memPoolExportPointer,
    memPoolImportPointer: b.memPoolImportPointer,
    memPoolSetAccessMany: (pool, descriptors) =>
      b.memPoolSetAccessMany(pool, packAccessDescriptors(descriptors)),
    memAlloc: b.memAlloc,
    memFree: b.memFree,
    memHostAlloc: b.memHostAlloc,
    memFreeHost: b.memFreeHost,
    memAllocManaged: b.memAllocManaged,
    ipcGetMemHandle: b.ipcGetMemHandle,
    ipcOpenMemHandle: b.ipcOpenMemHandle,
    ipcCloseMemHandle: b.ipcCloseMemHandle,
    ipcGetEventHandle: b.ipcGetEventHandle,
    ipcOpenEventHandle: b.ipcOpenEventHandle,
    memcpyAsync: b.memcpyAsync,
    memcpyHtoDAsync: b.memcpyHtoDAsync,
    memcpyDtoHAsync: b.memcpyDtoHAsync,
    memcpyHtoD: b.memcpyHtoD,
    memcpyDtoH: b.memcpyDtoH,
    memcpy2DAsync: b.memcpy2DAsync,
    memcpy3DAsync: b.memcpy3DAsync,
    memcpyBatchAsync: b.memcpyBatchAsync,
    memsetD8Async: b.memsetD8Async,
    memsetD16Async: b.memsetD16Async,
    memsetD32Async: b.memsetD32Async,
    memcpyPeerAsync: b.memcpyPeerAsync,
    memAdvise: (pointer, size, advice, location) =>
      b.memAdvise(pointer, size, advice, location.type, location.id),
    memPrefetchAsync: (pointer, size, location, stream) =>
      b.memPrefetchAsync(pointer, size, location.type, location.id, stream),
    memPrefetchBatchAsync: b.memPrefetchBatchAsync,
    memDiscardBatchAsync: b.memDiscardBatchAsync,
    memDiscardAndPrefetchBatchAsync: b.memDiscardAndPrefetchBatchAsync,
    memRangeGetAttribute: b.memRangeGetAttribute,
    memRangeGetAccessedBy: b.memRangeGetAccessedBy,
    pointerGetAttribute: b.pointerGetAttribute,
    pointerGetHandleAttribute: b.pointerGetHandleAttribute,
    hostView: b.hostView,
    addressOf: b.addressOf,
    detachView: b.detachView,
    duplicateFileDescriptor: (fd) => {
      checkFileDescriptor(fd);
      const duplicate = b.duplicateFileDescriptor(fd);
      if (duplicate < 0) throw duplicateDescriptorError(fd, -duplicate, 'fcntl');
      return duplicate;
    },
    nativeReleaseFunction: b.nativeReleaseFunction,
    readNativeMemory: b.readNativeMemory,
    callNativeFunction: b.callNativeFunction,
    memHostRegister: b.memHostRegister,
    memHostUnregister: b.memHostUnregister,
    stagedCopyHtoD: (dst, src, stream, options) => {
      checkStagedCopyOptions('stagedCopyHtoD', options);
      b.stagedCopy(true, dst, src, stream, options.chunkBytes, options.threads);
    },
    stagedCopyDtoH: (dst, src, stream, options) => {
      checkStagedCopyOptions('stagedCopyDtoH', options);
      b.stagedCopy(false, src, dst, stream, options.chunkBytes, options.threads);
    },
    ...computeMembers(b),
    ...virtualMemoryMembers(b),
  } satisfies Omit<Driver, DriverAccessors>;
  const accessors: Pick<Driver, DriverAccessors> = {
    get driverVersion(): number {
      return b.driverVersion();
    },
    get capabilities(): DriverCapabilities {
      capabilities ??= Object.freeze(b.capabilities());
      return capabilities;
    },
  };
  return assembleDriver(members, accessors);
}

/**
 * A binding whose every function throws `error`: the Driver of a package whose addon is not
 * built. It has the same members as a working one; only using them fails.
 */
function unavailableBinding(error: DriverUnavailableError): NativeBinding {
  const fail = () => {
    throw error;
  };
  return new Proxy({} as NativeBinding, { get: () => fail });
}

/**
 * {@link createDriver} over an explicit addon load result (tests point the loader elsewhere).
 * @internal
 */
export function createDriverFrom(loaded: AddonLoadResult, options?: DriverOptions): Driver {
  const { libraryPath, legacy } = checkDriverOptions(options);
  if (loaded.addon === undefined) return driverFromBinding(unavailableBinding(loaded.error));
  return driverFromBinding(loaded.addon.createBinding(libraryPath, legacy, capabilitiesOf));
}

/**
 * The cumem {@link Driver} over the N-API addon. Creating it never loads `libcuda.so.1`; the
 * first member used does, and throws `DriverUnavailableError` (every time) when the library,
 * a device or the addon itself is missing.
 *
 * @param options `entryPoints` (`'auto'`, default, or `'legacy'` for the CUDA 12.0 forms) and
 *   `libraryPath` (default `'libcuda.so.1'`).
 * @throws TypeError when `options` is not an object or has a wrong-typed field.
 */
export function createDriver(options?: DriverOptions): Driver {
  return createDriverFrom(defaultAddon(), options);
}
