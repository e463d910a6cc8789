import type { DevicePointer, Driver, DriverCapabilities, DriverHandle } from '@cumem/core-types';
import type { NativeVirtualMemoryBinding } from './napi-virtual-memory.js';

/** The Driver members the addon implements with the contract's exact signature. */
type ContractMembers =
  | 'deviceGetCount'
  | 'deviceGetName'
  | 'deviceGetUuid'
  | 'deviceTotalMem'
  | 'deviceGetAttribute'
  | 'deviceGetDefaultMemPool'
  | 'deviceGetMemPool'
  | 'deviceCanAccessPeer'
  | 'deviceGetP2PAttribute'
  | 'primaryContextRetain'
  | 'primaryContextRelease'
  | 'contextSetCurrent'
  | 'contextGetCurrent'
  | 'contextGetDevice'
  | 'contextSynchronize'
  | 'memGetInfo'
  | 'contextGetStreamPriorityRange'
  | 'contextEnablePeerAccess'
  | 'streamCreate'
  | 'streamDestroy'
  | 'streamSynchronize'
  | 'streamSynchronizeAsync'
  | 'streamQuery'
  | 'streamWaitEvent'
  | 'eventCreate'
  | 'eventDestroy'
  | 'eventRecord'
  | 'eventSynchronize'
  | 'eventSynchronizeAsync'
  | 'eventQuery'
  | 'eventElapsedTime'
  | 'memPoolDestroy'
  | 'memPoolSetAttribute'
  | 'memPoolGetAttribute'
  | 'memPoolTrimTo'
  | 'memFreeAsync'
  | 'memPoolExportToFileDescriptor'
  | 'memPoolImportFromFileDescriptor'
  | 'memPoolExportPointer'
  | 'memPoolImportPointer'
  | 'memAlloc'
  | 'memFree'
  | 'memHostAlloc'
  | 'memFreeHost'
  | 'memAllocManaged'
  | 'ipcGetMemHandle'
  | 'ipcOpenMemHandle'
  | 'ipcCloseMemHandle'
  | 'ipcGetEventHandle'
  | 'ipcOpenEventHandle'
  | 'memcpyAsync'
  | 'memcpyHtoDAsync'
  | 'memcpyDtoHAsync'
  | 'memcpyHtoD'
  | 'memcpyDtoH'
  | 'memcpy2DAsync'
  | 'memcpy3DAsync'
  | 'memcpyBatchAsync'
  | 'memsetD8Async'
  | 'memsetD16Async'
  | 'memsetD32Async'
  | 'memcpyPeerAsync'
  | 'memPrefetchBatchAsync'
  | 'memDiscardBatchAsync'
  | 'memDiscardAndPrefetchBatchAsync'
  | 'memRangeGetAttribute'
  | 'memRangeGetAccessedBy'
  | 'pointerGetAttribute'
  | 'pointerGetHandleAttribute'
  | 'hostView'
  | 'addressOf'
  | 'detachView'
  | 'memHostRegister'
  | 'memHostUnregister'
  | 'libraryLoadData'
  | 'libraryUnload'
  | 'libraryGetKernel'
  | 'kernelGetFunction'
  | 'funcGetAttribute'
  | 'funcSetAttribute'
  | 'occupancyMaxActiveBlocksPerMultiprocessor'
  | 'nativeReleaseFunction'
  | 'readNativeMemory'
  | 'callNativeFunction';

/**
 * The functions `createBinding()` of the addon returns, all bound to one native driver state.
 * The {@link ContractMembers} have exactly the {@link Driver} member's signature and are used as
 * the member itself, so their types come from the contract; the members declared here take a
 * `MemLocation` as two integers (`type`, `id`) so no object crosses into C++, or differ as their
 * notes say.
 * @internal
 */
export interface NativeBinding extends Pick<Driver, ContractMembers>, NativeVirtualMemoryBinding {
  driverVersion(): number;
  /** `[offset, size]`, or null past the last parameter. */
  funcGetParamInfo(fn: DriverHandle, index: number): [number, number] | null;
  /**
   * The launch with its geometry as 10 words (grid x, y, z, block x, y, z, sharedMemBytes,
   * cluster x, y, z; cluster 0, 0, 0: none), so no object and one value cross into C++.
   */
  launchKernelEx(
    fn: DriverHandle,
    geometry: Uint32Array,
    argumentBytes: Uint8Array,
    argumentOffsets: Uint32Array,
    stream: DriverHandle,
  ): void;
  /**
   * launchKernelEx with the geometry, parameter count, packed bytes' length, offsets and bytes
   * written into `area` (compute-members.ts gives the layout): one value besides the handles.
   */
  launchKernelArea(fn: DriverHandle, stream: DriverHandle, area: ArrayBuffer): void;
  /** `[minGridSize, blockSize]`. */
  occupancyMaxPotentialBlockSize(
    fn: DriverHandle,
    dynamicSharedMemBytes: number,
    blockSizeLimit: number,
  ): [number, number];
  capabilities(): DriverCapabilities;
  memPoolCreate(
    allocationType: number,
    locationType: number,
    locationId: number,
    handleTypes: number,
    maxSize: number,
  ): DriverHandle;
  memPoolSetAccess(pool: DriverHandle, locationType: number, locationId: number, flags: number): void;
  memPoolGetAccess(pool: DriverHandle, locationType: number, locationId: number): number;
  memGetMemPool(locationType: number, locationId: number, allocationType: number): DriverHandle;
  memGetDefaultMemPool(locationType: number, locationId: number, allocationType: number): DriverHandle;
  /** Stores the new pointer in {@link pointerResult}[0] instead of returning it (see napi-driver.ts). */
  memAllocFromPoolAsync(size: number, pool: DriverHandle, stream: DriverHandle): void;
  /** One element, written by {@link memAllocFromPoolAsync}; held by the native state, never reallocated. */
  readonly pointerResult: BigUint64Array;
  /** `packed`: (location type, location id, flags) triples, one per `CUmemAccessDesc`. */
  memPoolSetAccessMany(pool: DriverHandle, packed: Int32Array): void;
  memAdvise(
    pointer: DevicePointer,
    size: number,
    advice: number,
    locationType: number,
    locationId: number,
  ): void;
  memPrefetchAsync(
    pointer: DevicePointer,
    size: number,
    locationType: number,
    locationId: number,
    stream: DriverHandle,
  ): void;
  /** `fcntl(fd, F_DUPFD_CLOEXEC, 0)`: the new descriptor, or -errno. */
  duplicateFileDescriptor(fd: number): number;
  /** Both staged copies (staging-engine.cc); options checked by the caller. */
  stagedCopy(
    toDevice: boolean,
    device: DevicePointer,
    view: ArrayBufferView,
    stream: DriverHandle,
    chunkBytes: number,
    threads: number,
  ): void;
}

/** The addon module itself (`cumem_napi.node`). @internal */
export interface NativeAddon {
  /** Registers the function that builds every error the addon throws (see error-factory.ts). */
  setErrorFactory(factory: (kind: string, ...details: unknown[]) => Error): void;
  /** A fresh driver state: nothing is loaded until one of its functions is called. */
  /**
   * One binding per driver. `deriveCapabilities` is called once, when libcuda has loaded, with
   * the driver's version and the optional entry points that resolved: policy is driver-kit's.
   */
  createBinding(
    libraryPath: string,
    legacy: boolean,
    deriveCapabilities: (driverVersion: number, resolved: string[], legacy: boolean) => DriverCapabilities,
  ): NativeBinding;
  /** `CUDA_VERSION` of the headers the addon was compiled against. */
  readonly cudaHeaderVersion: number;
}
