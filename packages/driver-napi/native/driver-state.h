// Per-driver state shared by every area of the addon: the resolved entry points, the load
// status and the capabilities. One DriverState exists per createDriver() call, because two
// drivers in one process may use different libraries or entry-point modes.
#pragma once

#include <node_api.h>

#include <string>
#include <vector>

#include "cuda-entry-points.h"


namespace cumem {

// Every slot is typed with the PFN_<name>_v<ABI> typedef (cuda-entry-points.h, as cudaTypedefs.h has it) and resolved with
// that same ABI version, so a driver can never hand us a different signature: e.g. a CUDA 13
// driver's cuCtxGetDevice at ABI 13000 takes a context as a second argument.
struct EntryPoints {
  PFN_cuGetErrorName_v6000 cuGetErrorName = nullptr;
  PFN_cuGetErrorString_v6000 cuGetErrorString = nullptr;
  PFN_cuInit_v2000 cuInit = nullptr;
  PFN_cuDriverGetVersion_v2020 cuDriverGetVersion = nullptr;
  PFN_cuGetProcAddress_v12000 cuGetProcAddress = nullptr;

  PFN_cuDeviceGet_v2000 cuDeviceGet = nullptr;
  PFN_cuDeviceGetCount_v2000 cuDeviceGetCount = nullptr;
  PFN_cuDeviceGetName_v2000 cuDeviceGetName = nullptr;
  PFN_cuDeviceGetUuid_v11040 cuDeviceGetUuid = nullptr;
  PFN_cuDeviceTotalMem_v3020 cuDeviceTotalMem = nullptr;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute = nullptr;
  PFN_cuDeviceGetDefaultMemPool_v11020 cuDeviceGetDefaultMemPool = nullptr;
  PFN_cuDeviceGetMemPool_v11020 cuDeviceGetMemPool = nullptr;
  PFN_cuDeviceCanAccessPeer_v4000 cuDeviceCanAccessPeer = nullptr;
  PFN_cuDeviceGetP2PAttribute_v8000 cuDeviceGetP2PAttribute = nullptr;

  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_v11000 cuDevicePrimaryCtxRelease = nullptr;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent = nullptr;
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent = nullptr;
  PFN_cuCtxGetDevice_v2000 cuCtxGetDevice = nullptr;
  PFN_cuCtxSynchronize_v2000 cuCtxSynchronize = nullptr;
  PFN_cuMemGetInfo_v3020 cuMemGetInfo = nullptr;
  PFN_cuCtxGetStreamPriorityRange_v5050 cuCtxGetStreamPriorityRange = nullptr;
  PFN_cuCtxEnablePeerAccess_v4000 cuCtxEnablePeerAccess = nullptr;

  PFN_cuStreamCreateWithPriority_v5050 cuStreamCreateWithPriority = nullptr;
  PFN_cuStreamDestroy_v4000 cuStreamDestroy = nullptr;
  PFN_cuStreamSynchronize_v2000 cuStreamSynchronize = nullptr;
  PFN_cuStreamQuery_v2000 cuStreamQuery = nullptr;
  PFN_cuStreamWaitEvent_v3020 cuStreamWaitEvent = nullptr;
  PFN_cuEventCreate_v2000 cuEventCreate = nullptr;
  PFN_cuEventDestroy_v4000 cuEventDestroy = nullptr;
  PFN_cuEventRecord_v2000 cuEventRecord = nullptr;
  PFN_cuEventSynchronize_v2000 cuEventSynchronize = nullptr;
  PFN_cuEventQuery_v2000 cuEventQuery = nullptr;
  // Same signature at ABI 2000 and 12080; the newer one is taken when the driver has it.
  PFN_cuEventElapsedTime_v2000 cuEventElapsedTime = nullptr;

  PFN_cuMemPoolCreate_v11020 cuMemPoolCreate = nullptr;
  PFN_cuMemPoolDestroy_v11020 cuMemPoolDestroy = nullptr;
  PFN_cuMemPoolSetAttribute_v11020 cuMemPoolSetAttribute = nullptr;
  PFN_cuMemPoolGetAttribute_v11020 cuMemPoolGetAttribute = nullptr;
  PFN_cuMemPoolSetAccess_v11020 cuMemPoolSetAccess = nullptr;
  PFN_cuMemPoolGetAccess_v11020 cuMemPoolGetAccess = nullptr;
  PFN_cuMemPoolTrimTo_v11020 cuMemPoolTrimTo = nullptr;
  PFN_cuMemAllocFromPoolAsync_v11020 cuMemAllocFromPoolAsync = nullptr;
  PFN_cuMemFreeAsync_v11020 cuMemFreeAsync = nullptr;
  PFN_cuMemPoolExportToShareableHandle_v11020 cuMemPoolExportToShareableHandle = nullptr;
  PFN_cuMemPoolImportFromShareableHandle_v11020 cuMemPoolImportFromShareableHandle = nullptr;
  PFN_cuMemPoolExportPointer_v11020 cuMemPoolExportPointer = nullptr;
  PFN_cuMemPoolImportPointer_v11020 cuMemPoolImportPointer = nullptr;

  PFN_cuMemAlloc_v3020 cuMemAlloc = nullptr;
  PFN_cuMemFree_v3020 cuMemFree = nullptr;
  PFN_cuMemHostAlloc_v2020 cuMemHostAlloc = nullptr;
  PFN_cuMemFreeHost_v2000 cuMemFreeHost = nullptr;
  PFN_cuMemAllocManaged_v6000 cuMemAllocManaged = nullptr;
  PFN_cuIpcGetMemHandle_v4010 cuIpcGetMemHandle = nullptr;
  PFN_cuIpcOpenMemHandle_v11000 cuIpcOpenMemHandle = nullptr;
  PFN_cuIpcCloseMemHandle_v4010 cuIpcCloseMemHandle = nullptr;
  PFN_cuIpcGetEventHandle_v4010 cuIpcGetEventHandle = nullptr;
  PFN_cuIpcOpenEventHandle_v4010 cuIpcOpenEventHandle = nullptr;

  PFN_cuMemcpyAsync_v4000 cuMemcpyAsync = nullptr;
  PFN_cuMemcpyHtoDAsync_v3020 cuMemcpyHtoDAsync = nullptr;
  PFN_cuMemcpyDtoHAsync_v3020 cuMemcpyDtoHAsync = nullptr;
  PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD = nullptr;
  PFN_cuMemcpyDtoH_v3020 cuMemcpyDtoH = nullptr;
  PFN_cuMemcpy2DAsync_v3020 cuMemcpy2DAsync = nullptr;
  PFN_cuMemcpy3DAsync_v3020 cuMemcpy3DAsync = nullptr;
#if CUDA_VERSION >= 12080
  PFN_cuMemcpyBatchAsync_v12080 cuMemcpyBatchAsync_v12080 = nullptr;
#endif
#if CUDA_VERSION >= 13000
  PFN_cuMemcpyBatchAsync_v13000 cuMemcpyBatchAsync_v13000 = nullptr;
#endif
  PFN_cuMemsetD8Async_v3020 cuMemsetD8Async = nullptr;
  PFN_cuMemsetD16Async_v3020 cuMemsetD16Async = nullptr;
  PFN_cuMemsetD32Async_v3020 cuMemsetD32Async = nullptr;
  PFN_cuMemcpyPeerAsync_v4000 cuMemcpyPeerAsync = nullptr;

  PFN_cuMemAdvise_v8000 cuMemAdvise_v8000 = nullptr;
  PFN_cuMemPrefetchAsync_v8000 cuMemPrefetchAsync_v8000 = nullptr;
#if CUDA_VERSION >= 12020
  PFN_cuMemAdvise_v12020 cuMemAdvise_v12020 = nullptr;
  PFN_cuMemPrefetchAsync_v12020 cuMemPrefetchAsync_v12020 = nullptr;
#endif
#if CUDA_VERSION >= 13000
  PFN_cuMemPrefetchBatchAsync_v13000 cuMemPrefetchBatchAsync = nullptr;
  PFN_cuMemDiscardBatchAsync_v13000 cuMemDiscardBatchAsync = nullptr;
  PFN_cuMemDiscardAndPrefetchBatchAsync_v13000 cuMemDiscardAndPrefetchBatchAsync = nullptr;
#endif
  PFN_cuMemRangeGetAttribute_v8000 cuMemRangeGetAttribute = nullptr;
  PFN_cuPointerGetAttribute_v4000 cuPointerGetAttribute = nullptr;

  PFN_cuMemHostRegister_v6050 cuMemHostRegister = nullptr;
  PFN_cuMemHostUnregister_v4000 cuMemHostUnregister = nullptr;
#if CUDA_VERSION >= 13000
  PFN_cuMemGetMemPool_v13000 cuMemGetMemPool = nullptr;
  PFN_cuMemGetDefaultMemPool_v13000 cuMemGetDefaultMemPool = nullptr;
#endif

  // Compute: resolved when present (binding-compute.cc refuses a member whose slot is empty).
  PFN_cuLibraryLoadData_v12000 cuLibraryLoadData = nullptr;
  PFN_cuLibraryUnload_v12000 cuLibraryUnload = nullptr;
  PFN_cuLibraryGetKernel_v12000 cuLibraryGetKernel = nullptr;
  PFN_cuKernelGetFunction_v12000 cuKernelGetFunction = nullptr;
  PFN_cuFuncGetAttribute_v2020 cuFuncGetAttribute = nullptr;
  PFN_cuFuncSetAttribute_v9000 cuFuncSetAttribute = nullptr;
  PFN_cuFuncGetParamInfo_v12040 cuFuncGetParamInfo = nullptr;
  PFN_cuLaunchKernelEx_v11060 cuLaunchKernelEx = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
  PFN_cuOccupancyMaxPotentialBlockSize_v6050 cuOccupancyMaxPotentialBlockSize = nullptr;

  // Virtual memory management (binding-virtual-memory.cc).
  PFN_cuMemAddressReserve_v10020 cuMemAddressReserve = nullptr;
  PFN_cuMemAddressFree_v10020 cuMemAddressFree = nullptr;
  PFN_cuMemCreate_v10020 cuMemCreate = nullptr;
  PFN_cuMemRelease_v10020 cuMemRelease = nullptr;
  PFN_cuMemMap_v10020 cuMemMap = nullptr;
  PFN_cuMemUnmap_v10020 cuMemUnmap = nullptr;
  PFN_cuMemSetAccess_v10020 cuMemSetAccess = nullptr;
  PFN_cuMemGetAccess_v10020 cuMemGetAccess = nullptr;
  PFN_cuMemExportToShareableHandle_v10020 cuMemExportToShareableHandle = nullptr;
  PFN_cuMemImportFromShareableHandle_v10020 cuMemImportFromShareableHandle = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity = nullptr;
  PFN_cuMemGetAllocationPropertiesFromHandle_v10020 cuMemGetAllocationPropertiesFromHandle = nullptr;
};

/**
 * Mirrors DriverCapabilities of @cumem/core-types. Filled from what @cumem/driver-kit derives
 * (in TypeScript, from the version and the resolved symbols) when the driver loads.
 */
struct Capabilities {
  bool memoryLocations = false;
  bool hostNumaLocations = false;
  bool batchPrefetchDiscard = false;
  bool batchMemcpy = false;
  bool hostMemoryPools = false;
  bool managedMemoryPools = false;
  bool interprocess = false;
  bool memoryPoolQueries = false;
  bool kernelParameterInfo = false;
};

struct StagingCache;

// Resolved: libcuda loaded and its entry points resolved, capabilities not yet derived.
enum class LoadStatus { NotLoaded, Resolved, Ready, Failed };

struct DriverState {
  std::string libraryPath;
  bool legacy = false;
  LoadStatus status = LoadStatus::NotLoaded;
  // Why loading failed: a DriverUnavailableReason of @cumem/core-types, and the details.
  std::string failureReason;
  std::string failureDetail;
  void* library = nullptr;
  int driverVersion = 0;
  Capabilities capabilities;
  EntryPoints cu;
  // Function objects (and in-flight workers) holding this state; freed when it reaches 0.
  int references = 0;
  // The one-element BigUint64Array `pointerResult` of the binding: memAllocFromPoolAsync stores
  // the new pointer there and the Driver reads it in JS (see binding-pools.cc for why). The
  // state holds a strong reference, so the memory outlives every function that writes it.
  uint64_t* pointerResult = nullptr;
  napi_ref pointerResultBuffer = nullptr;
  // The staged-copy engine's pinned chunks, streams and events (staging-engine.cc), made on first use.
  StagingCache* staging = nullptr;
  // deriveCapabilities(driverVersion, resolvedSymbols, legacy) of the TypeScript side: policy
  // lives there, once; the addon only reports what it resolved.
  napi_ref deriveCapabilities = nullptr;
  // The CUdevice of each ordinal, from cuDeviceGet on first use (device-handles.h); kUnknownDevice
  // where not asked yet.
  std::vector<CUdevice> devices;
};

// The lowest driver this adapter runs on: cuGetProcAddress_v2 and the forms that
// `entryPoints: 'legacy'` emulates are those of CUDA 12.0.
constexpr int kMinimumDriverVersion = 12000;

/** Loads the library and resolves the entry points once; false (with `status` Failed) on failure. */
void LoadDriver(DriverState* state);

/** The exported names of the optional entry points that resolved (driver-kit's table). */
std::vector<const char*> ResolvedOptionalSymbols(const DriverState* state);

}  // namespace cumem
