import type {
  DevicePointer,
  DriverCapabilities,
  DriverHandle,
  Memcpy2D,
  Memcpy3D,
  MemLocation,
} from '@cumem/core-types';

/**
 * The functions `createBinding()` of the addon returns, all bound to one native driver state.
 * Most have exactly the {@link Driver} member's signature and are used as the member itself;
 * the rest take a `MemLocation` as two integers (`type`, `id`) so no object crosses into C++.
 * @internal
 */
export interface NativeBinding {
  driverVersion(): number;
  capabilities(): {
    memoryLocations: boolean;
    hostNumaLocations: boolean;
    batchPrefetchDiscard: boolean;
    batchMemcpy: boolean;
    hostMemoryPools: boolean;
    managedMemoryPools: boolean;
    interprocess: boolean;
  };
  deviceGetCount(): number;
  deviceGetName(ordinal: number): string;
  deviceGetUuid(ordinal: number): Uint8Array;
  deviceTotalMem(ordinal: number): number;
  deviceGetAttribute(attribute: number, ordinal: number): number;
  deviceGetDefaultMemPool(ordinal: number): DriverHandle;
  deviceGetMemPool(ordinal: number): DriverHandle;
  deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean;
  deviceGetP2PAttribute(attribute: number, srcOrdinal: number, dstOrdinal: number): number;
  primaryContextRetain(ordinal: number): DriverHandle;
  primaryContextRelease(ordinal: number): void;
  contextSetCurrent(context: DriverHandle): void;
  contextGetCurrent(): DriverHandle;
  contextGetDevice(): number;
  contextSynchronize(): void;
  memGetInfo(): { free: number; total: number };
  contextGetStreamPriorityRange(): { least: number; greatest: number };
  contextEnablePeerAccess(peerContext: DriverHandle): void;
  streamCreate(flags: number, priority: number): DriverHandle;
  streamDestroy(stream: DriverHandle): void;
  streamSynchronize(stream: DriverHandle): void;
  streamSynchronizeAsync(stream: DriverHandle): Promise<void>;
  streamQuery(stream: DriverHandle): boolean;
  streamWaitEvent(stream: DriverHandle, event: DriverHandle): void;
  eventCreate(flags: number): DriverHandle;
  eventDestroy(event: DriverHandle): void;
  eventRecord(event: DriverHandle, stream: DriverHandle): void;
  eventSynchronize(event: DriverHandle): void;
  eventSynchronizeAsync(event: DriverHandle): Promise<void>;
  eventQuery(event: DriverHandle): boolean;
  eventElapsedTime(start: DriverHandle, end: DriverHandle): number;
  memPoolCreate(
    allocationType: number,
    locationType: number,
    locationId: number,
    handleTypes: number,
    maxSize: number,
  ): DriverHandle;
  memPoolDestroy(pool: DriverHandle): void;
  memPoolSetAttribute(pool: DriverHandle, attribute: number, value: number): void;
  memPoolGetAttribute(pool: DriverHandle, attribute: number): number;
  memPoolSetAccess(pool: DriverHandle, locationType: number, locationId: number, flags: number): void;
  memPoolGetAccess(pool: DriverHandle, locationType: number, locationId: number): number;
  memPoolTrimTo(pool: DriverHandle, minBytesToKeep: number): void;
  /** Stores the new pointer in {@link pointerResult}[0] instead of returning it (see napi-driver.ts). */
  memAllocFromPoolAsync(size: number, pool: DriverHandle, stream: DriverHandle): void;
  /** One element, written by {@link memAllocFromPoolAsync}; held by the native state, never reallocated. */
  readonly pointerResult: BigUint64Array;
  memFreeAsync(pointer: DevicePointer, stream: DriverHandle): void;
  memPoolExportToFileDescriptor(pool: DriverHandle): number;
  memPoolImportFromFileDescriptor(fd: number): DriverHandle;
  memPoolExportPointer(pointer: DevicePointer): Uint8Array;
  memPoolImportPointer(pool: DriverHandle, data: Uint8Array): DevicePointer;
  /** `packed`: (location type, location id, flags) triples, one per `CUmemAccessDesc`. */
  memPoolSetAccessMany(pool: DriverHandle, packed: Int32Array): void;
  memAlloc(size: number): DevicePointer;
  memFree(pointer: DevicePointer): void;
  memHostAlloc(size: number, flags: number): DevicePointer;
  memFreeHost(pointer: DevicePointer): void;
  memAllocManaged(size: number, flags: number): DevicePointer;
  ipcGetMemHandle(pointer: DevicePointer): Uint8Array;
  ipcOpenMemHandle(handle: Uint8Array, flags: number): DevicePointer;
  ipcCloseMemHandle(pointer: DevicePointer): void;
  ipcGetEventHandle(event: DriverHandle): Uint8Array;
  ipcOpenEventHandle(handle: Uint8Array): DriverHandle;
  memcpyAsync(dst: DevicePointer, src: DevicePointer, size: number, stream: DriverHandle): void;
  memcpyHtoDAsync(dst: DevicePointer, src: ArrayBufferView, stream: DriverHandle): void;
  memcpyDtoHAsync(dst: ArrayBufferView, src: DevicePointer, stream: DriverHandle): void;
  memcpyHtoD(dst: DevicePointer, src: ArrayBufferView): void;
  memcpyDtoH(dst: ArrayBufferView, src: DevicePointer): void;
  memcpy2DAsync(copy: Memcpy2D, stream: DriverHandle): void;
  memcpy3DAsync(copy: Memcpy3D, stream: DriverHandle): void;
  memcpyBatchAsync(
    dsts: BigUint64Array,
    srcs: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void;
  memsetD8Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void;
  memsetD16Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void;
  memsetD32Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void;
  memcpyPeerAsync(
    dst: DevicePointer,
    dstContext: DriverHandle,
    src: DevicePointer,
    srcContext: DriverHandle,
    size: number,
    stream: DriverHandle,
  ): void;
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
  memPrefetchBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    locations: readonly MemLocation[],
    locationStarts: readonly number[],
    stream: DriverHandle,
  ): void;
  memDiscardBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void;
  memDiscardAndPrefetchBatchAsync(
    pointers: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    locations: readonly MemLocation[],
    locationStarts: readonly number[],
    stream: DriverHandle,
  ): void;
  memRangeGetAttribute(pointer: DevicePointer, size: number, attribute: number): number;
  memRangeGetAccessedBy(pointer: DevicePointer, size: number): number[];
  pointerGetAttribute(pointer: DevicePointer, attribute: number): number;
  pointerGetHandleAttribute(pointer: DevicePointer, attribute: number): bigint;
  hostView(pointer: DevicePointer, size: number): Uint8Array;
  addressOf(view: ArrayBufferView | ArrayBuffer): DevicePointer;
  detachView(view: ArrayBuffer): boolean;
  /** `fcntl(fd, F_DUPFD_CLOEXEC, 0)`: the new descriptor, or -errno. */
  duplicateFileDescriptor(fd: number): number;
  memHostRegister(view: ArrayBufferView | ArrayBuffer, flags: number): DevicePointer;
  memHostUnregister(pointer: DevicePointer): void;
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
