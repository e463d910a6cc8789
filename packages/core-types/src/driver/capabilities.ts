// What a loaded driver can do: fixed at load, the flags callers branch on.

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
