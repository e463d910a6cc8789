// Loads libcuda at first use (never at link time, so the addon loads on machines without a
// GPU) and resolves every entry point at the exact ABI version its slot is typed with.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "driver-state.h"

namespace cumem {
namespace {

constexpr int kLegacyVersion = 12000;

class Resolver {
 public:
  explicit Resolver(DriverState* state) : state_(state) {}

  // `name` is the API name cuGetProcAddress knows; `abi` the CUDA version whose signature the
  // slot has; `exported` the versioned symbol that dlsym finds when cuGetProcAddress cannot.
  // Only asked for when the driver is at least `abi`: an older driver would answer with an
  // older signature.
  template <typename Fn>
  bool Get(Fn* slot, const char* name, int abi, const char* exported, int ceiling) {
    *slot = nullptr;
    if (abi > ceiling) return false;
    void* pointer = nullptr;
    if (state_->cu.cuGetProcAddress != nullptr) {
      CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      // LEGACY_STREAM: the plain (not per-thread default stream) variants; cumem always
      // passes explicit streams, and this matches what dlsym of the plain names returns.
      CUresult result = state_->cu.cuGetProcAddress(name, &pointer, abi, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
      if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS) pointer = nullptr;
    }
    if (pointer == nullptr) pointer = dlsym(state_->library, exported);
    *slot = reinterpret_cast<Fn>(pointer);
    return pointer != nullptr;
  }

  // A slot every supported driver (12.0 and newer) has; a miss fails the load.
  template <typename Fn>
  void Require(Fn* slot, const char* name, int abi, const char* exported) {
    if (!Get(slot, name, abi, exported, state_->driverVersion)) missing_.push_back(exported);
  }

  std::string Missing() const {
    std::string list;
    for (const auto& name : missing_) list += (list.empty() ? "" : ", ") + name;
    return list;
  }

 private:
  DriverState* state_;
  std::vector<std::string> missing_;
};

void Fail(DriverState* state, const char* reason, std::string detail) {
  state->status = LoadStatus::Failed;
  state->failureReason = reason;
  state->failureDetail = std::move(detail);
}

template <typename Fn>
bool Symbol(void* library, Fn* slot, const char* name) {
  *slot = reinterpret_cast<Fn>(dlsym(library, name));
  return *slot != nullptr;
}

std::string DescribeResult(const EntryPoints& cu, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cu.cuGetErrorName == nullptr || cu.cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (cu.cuGetErrorString == nullptr || cu.cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  std::string out = name != nullptr ? name : "CUresult";
  out += " (" + std::to_string(static_cast<int>(result)) + ")";
  if (text != nullptr) out += std::string(": ") + text;
  return out;
}

void ResolveAll(DriverState* state) {
  EntryPoints& cu = state->cu;
  Resolver r(state);
  // The forms of a CUDA 12.0 driver: what 'legacy' emulates and what every supported driver has.
  r.Require(&cu.cuDeviceGet, "cuDeviceGet", 2000, "cuDeviceGet");
  r.Require(&cu.cuDeviceGetCount, "cuDeviceGetCount", 2000, "cuDeviceGetCount");
  r.Require(&cu.cuDeviceGetName, "cuDeviceGetName", 2000, "cuDeviceGetName");
  r.Require(&cu.cuDeviceGetUuid, "cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2");
  r.Require(&cu.cuDeviceTotalMem, "cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2");
  r.Require(&cu.cuDeviceGetAttribute, "cuDeviceGetAttribute", 2000, "cuDeviceGetAttribute");
  r.Require(&cu.cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 11020, "cuDeviceGetDefaultMemPool");
  r.Require(&cu.cuDeviceGetMemPool, "cuDeviceGetMemPool", 11020, "cuDeviceGetMemPool");
  r.Require(&cu.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", 4000, "cuDeviceCanAccessPeer");
  r.Require(&cu.cuDeviceGetP2PAttribute, "cuDeviceGetP2PAttribute", 8000, "cuDeviceGetP2PAttribute");
  r.Require(&cu.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, "cuDevicePrimaryCtxRetain");
  r.Require(&cu.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2");
  r.Require(&cu.cuCtxSetCurrent, "cuCtxSetCurrent", 4000, "cuCtxSetCurrent");
  r.Require(&cu.cuCtxGetCurrent, "cuCtxGetCurrent", 4000, "cuCtxGetCurrent");
  // ABI 2000 on purpose: at 13000 both take a CUcontext as an extra argument.
  r.Require(&cu.cuCtxGetDevice, "cuCtxGetDevice", 2000, "cuCtxGetDevice");
  r.Require(&cu.cuCtxSynchronize, "cuCtxSynchronize", 2000, "cuCtxSynchronize");
  r.Require(&cu.cuMemGetInfo, "cuMemGetInfo", 3020, "cuMemGetInfo_v2");
  r.Require(&cu.cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", 5050, "cuCtxGetStreamPriorityRange");
  r.Require(&cu.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", 4000, "cuCtxEnablePeerAccess");
  r.Require(&cu.cuStreamCreateWithPriority, "cuStreamCreateWithPriority", 5050, "cuStreamCreateWithPriority");
  r.Require(&cu.cuStreamDestroy, "cuStreamDestroy", 4000, "cuStreamDestroy_v2");
  r.Require(&cu.cuStreamSynchronize, "cuStreamSynchronize", 2000, "cuStreamSynchronize");
  r.Require(&cu.cuStreamQuery, "cuStreamQuery", 2000, "cuStreamQuery");
  r.Require(&cu.cuStreamWaitEvent, "cuStreamWaitEvent", 3020, "cuStreamWaitEvent");
  r.Require(&cu.cuEventCreate, "cuEventCreate", 2000, "cuEventCreate");
  r.Require(&cu.cuEventDestroy, "cuEventDestroy", 4000, "cuEventDestroy_v2");
  r.Require(&cu.cuEventRecord, "cuEventRecord", 2000, "cuEventRecord");
  r.Require(&cu.cuEventSynchronize, "cuEventSynchronize", 2000, "cuEventSynchronize");
  r.Require(&cu.cuEventQuery, "cuEventQuery", 2000, "cuEventQuery");
  r.Require(&cu.cuMemPoolCreate, "cuMemPoolCreate", 11020, "cuMemPoolCreate");
  r.Require(&cu.cuMemPoolDestroy, "cuMemPoolDestroy", 11020, "cuMemPoolDestroy");
  r.Require(&cu.cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 11020, "cuMemPoolSetAttribute");
  r.Require(&cu.cuMemPoolGetAttribute, "cuMemPoolGetAttribute", 11020, "cuMemPoolGetAttribute");
  r.Require(&cu.cuMemPoolSetAccess, "cuMemPoolSetAccess", 11020, "cuMemPoolSetAccess");
  r.Require(&cu.cuMemPoolGetAccess, "cuMemPoolGetAccess", 11020, "cuMemPoolGetAccess");
  r.Require(&cu.cuMemPoolTrimTo, "cuMemPoolTrimTo", 11020, "cuMemPoolTrimTo");
  r.Require(&cu.cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020, "cuMemAllocFromPoolAsync");
  r.Require(&cu.cuMemFreeAsync, "cuMemFreeAsync", 11020, "cuMemFreeAsync");
  r.Require(&cu.cuMemPoolExportToShareableHandle, "cuMemPoolExportToShareableHandle", 11020,
            "cuMemPoolExportToShareableHandle");
  r.Require(&cu.cuMemPoolImportFromShareableHandle, "cuMemPoolImportFromShareableHandle", 11020,
            "cuMemPoolImportFromShareableHandle");
  r.Require(&cu.cuMemPoolExportPointer, "cuMemPoolExportPointer", 11020, "cuMemPoolExportPointer");
  r.Require(&cu.cuMemPoolImportPointer, "cuMemPoolImportPointer", 11020, "cuMemPoolImportPointer");
  r.Require(&cu.cuMemAlloc, "cuMemAlloc", 3020, "cuMemAlloc_v2");
  r.Require(&cu.cuMemFree, "cuMemFree", 3020, "cuMemFree_v2");
  r.Require(&cu.cuMemHostAlloc, "cuMemHostAlloc", 2020, "cuMemHostAlloc");
  r.Require(&cu.cuMemFreeHost, "cuMemFreeHost", 2000, "cuMemFreeHost");
  r.Require(&cu.cuMemHostRegister, "cuMemHostRegister", 6050, "cuMemHostRegister_v2");
  r.Require(&cu.cuMemHostUnregister, "cuMemHostUnregister", 4000, "cuMemHostUnregister");
  r.Require(&cu.cuMemAddressReserve, "cuMemAddressReserve", 10020, "cuMemAddressReserve");
  r.Require(&cu.cuMemAddressFree, "cuMemAddressFree", 10020, "cuMemAddressFree");
  r.Require(&cu.cuMemCreate, "cuMemCreate", 10020, "cuMemCreate");
  r.Require(&cu.cuMemRelease, "cuMemRelease", 10020, "cuMemRelease");
  r.Require(&cu.cuMemMap, "cuMemMap", 10020, "cuMemMap");
  r.Require(&cu.cuMemUnmap, "cuMemUnmap", 10020, "cuMemUnmap");
  r.Require(&cu.cuMemSetAccess, "cuMemSetAccess", 10020, "cuMemSetAccess");
  r.Require(&cu.cuMemGetAccess, "cuMemGetAccess", 10020, "cuMemGetAccess");
  r.Require(&cu.cuMemExportToShareableHandle, "cuMemExportToShareableHandle", 10020, "cuMemExportToShareableHandle");
  r.Require(&cu.cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle", 10020, "cuMemImportFromShareableHandle");
  r.Require(&cu.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", 10020, "cuMemGetAllocationGranularity");
  r.Require(&cu.cuMemGetAllocationPropertiesFromHandle, "cuMemGetAllocationPropertiesFromHandle", 10020, "cuMemGetAllocationPropertiesFromHandle");
  r.Require(&cu.cuMemAllocManaged, "cuMemAllocManaged", 6000, "cuMemAllocManaged");
  r.Require(&cu.cuIpcGetMemHandle, "cuIpcGetMemHandle", 4010, "cuIpcGetMemHandle");
  r.Require(&cu.cuIpcOpenMemHandle, "cuIpcOpenMemHandle", 11000, "cuIpcOpenMemHandle_v2");
  r.Require(&cu.cuIpcCloseMemHandle, "cuIpcCloseMemHandle", 4010, "cuIpcCloseMemHandle");
  r.Require(&cu.cuIpcGetEventHandle, "cuIpcGetEventHandle", 4010, "cuIpcGetEventHandle");
  r.Require(&cu.cuIpcOpenEventHandle, "cuIpcOpenEventHandle", 4010, "cuIpcOpenEventHandle");
  r.Require(&cu.cuMemcpyAsync, "cuMemcpyAsync", 4000, "cuMemcpyAsync");
  r.Require(&cu.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2");
  r.Require(&cu.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync", 3020, "cuMemcpyDtoHAsync_v2");
  r.Require(&cu.cuMemcpyHtoD, "cuMemcpyHtoD", 3020, "cuMemcpyHtoD_v2");
  r.Require(&cu.cuMemcpyDtoH, "cuMemcpyDtoH", 3020, "cuMemcpyDtoH_v2");
  r.Require(&cu.cuMemcpy2DAsync, "cuMemcpy2DAsync", 3020, "cuMemcpy2DAsync_v2");
  r.Require(&cu.cuMemcpy3DAsync, "cuMemcpy3DAsync", 3020, "cuMemcpy3DAsync_v2");
  r.Require(&cu.cuMemsetD8Async, "cuMemsetD8Async", 3020, "cuMemsetD8Async");
  r.Require(&cu.cuMemsetD16Async, "cuMemsetD16Async", 3020, "cuMemsetD16Async");
  r.Require(&cu.cuMemsetD32Async, "cuMemsetD32Async", 3020, "cuMemsetD32Async");
  r.Require(&cu.cuMemcpyPeerAsync, "cuMemcpyPeerAsync", 4000, "cuMemcpyPeerAsync");
  r.Require(&cu.cuMemRangeGetAttribute, "cuMemRangeGetAttribute", 8000, "cuMemRangeGetAttribute");
  r.Require(&cu.cuPointerGetAttribute, "cuPointerGetAttribute", 4000, "cuPointerGetAttribute");

  // Newer forms: in 'legacy' mode nothing above CUDA 12.0 is asked for, except to stand in for a
  // CUDA 12.0 form the driver dropped. The rules are driver-kit's chooseEntryPoints
  // (packages/driver-kit/src/entry-point-choice.ts), which the FFI adapter applies as it is.
  const int ceiling = state->legacy ? kLegacyVersion : state->driverVersion;
  const int real = state->driverVersion;
  // The newest form within the ceiling, else the CUDA 2.0 one, else (legacy) _v2 standing in for it:
  // the same signature.
  if (!r.Get(&cu.cuEventElapsedTime, "cuEventElapsedTime", 12080, "cuEventElapsedTime_v2", ceiling) &&
      !r.Get(&cu.cuEventElapsedTime, "cuEventElapsedTime", 2000, "cuEventElapsedTime", real) &&
      !r.Get(&cu.cuEventElapsedTime, "cuEventElapsedTime", 12080, "cuEventElapsedTime_v2", real)) {
    r.Require(&cu.cuEventElapsedTime, "cuEventElapsedTime", 2000, "cuEventElapsedTime");
  }
  // Compute: optional, so that a libcuda without them (a test double) still loads; every
  // supported driver (CUDA 12.0 and newer) has all but cuFuncGetParamInfo (12.4).
  r.Get(&cu.cuLibraryLoadData, "cuLibraryLoadData", 12000, "cuLibraryLoadData", real);
  r.Get(&cu.cuLibraryUnload, "cuLibraryUnload", 12000, "cuLibraryUnload", real);
  r.Get(&cu.cuLibraryGetKernel, "cuLibraryGetKernel", 12000, "cuLibraryGetKernel", real);
  r.Get(&cu.cuKernelGetFunction, "cuKernelGetFunction", 12000, "cuKernelGetFunction", real);
  r.Get(&cu.cuFuncGetAttribute, "cuFuncGetAttribute", 2020, "cuFuncGetAttribute", real);
  r.Get(&cu.cuFuncSetAttribute, "cuFuncSetAttribute", 9000, "cuFuncSetAttribute", real);
  r.Get(&cu.cuFuncGetParamInfo, "cuFuncGetParamInfo", 12040, "cuFuncGetParamInfo", ceiling);
  r.Get(&cu.cuLaunchKernelEx, "cuLaunchKernelEx", 11060, "cuLaunchKernelEx", real);
  r.Get(&cu.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050,
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", real);
  r.Get(&cu.cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", 6050,
        "cuOccupancyMaxPotentialBlockSize", real);
  const std::string missing = r.Missing();
  if (!missing.empty()) {
    Fail(state, "entry-point-missing", missing);
    return;
  }
  const bool adviseV1 = r.Get(&cu.cuMemAdvise_v8000, "cuMemAdvise", 8000, "cuMemAdvise", real);
  const bool prefetchV1 = r.Get(&cu.cuMemPrefetchAsync_v8000, "cuMemPrefetchAsync", 8000, "cuMemPrefetchAsync", real);
#if CUDA_VERSION >= 12020
  // In 'legacy' mode a CUmemLocation form is still resolved when its CUdevice form is gone, to
  // emulate it (Device and Host locations only), each API on its own.
  const bool adviseV2 =
      r.Get(&cu.cuMemAdvise_v12020, "cuMemAdvise", 12020, "cuMemAdvise_v2", adviseV1 ? ceiling : real);
  const bool prefetchV2 = r.Get(&cu.cuMemPrefetchAsync_v12020, "cuMemPrefetchAsync", 12020, "cuMemPrefetchAsync_v2",
                                prefetchV1 ? ceiling : real);
  if (!(adviseV1 || adviseV2) || !(prefetchV1 || prefetchV2)) {
    Fail(state, "entry-point-missing", "cuMemAdvise, cuMemPrefetchAsync");
    return;
  }
#else
  if (!adviseV1 || !prefetchV1) {
    Fail(state, "entry-point-missing", "cuMemAdvise, cuMemPrefetchAsync");
    return;
  }
#endif

  if (state->legacy) return;
#if CUDA_VERSION >= 13000
  r.Get(&cu.cuMemcpyBatchAsync_v13000, "cuMemcpyBatchAsync", 13000, "cuMemcpyBatchAsync_v2", ceiling);
  r.Get(&cu.cuMemPrefetchBatchAsync, "cuMemPrefetchBatchAsync", 13000, "cuMemPrefetchBatchAsync", ceiling);
  r.Get(&cu.cuMemDiscardBatchAsync, "cuMemDiscardBatchAsync", 13000, "cuMemDiscardBatchAsync", ceiling);
  r.Get(&cu.cuMemDiscardAndPrefetchBatchAsync, "cuMemDiscardAndPrefetchBatchAsync", 13000,
        "cuMemDiscardAndPrefetchBatchAsync", ceiling);
  r.Get(&cu.cuMemGetMemPool, "cuMemGetMemPool", 13000, "cuMemGetMemPool", ceiling);
  r.Get(&cu.cuMemGetDefaultMemPool, "cuMemGetDefaultMemPool", 13000, "cuMemGetDefaultMemPool", ceiling);
#endif
#if CUDA_VERSION >= 12080
  // The CUDA 12.8 form only when the CUDA 13.0 one is missing: a driver has one or the other in use.
#if CUDA_VERSION >= 13000
  const bool batchV2 = cu.cuMemcpyBatchAsync_v13000 != nullptr;
#else
  const bool batchV2 = false;
#endif
  if (!batchV2) r.Get(&cu.cuMemcpyBatchAsync_v12080, "cuMemcpyBatchAsync", 12080, "cuMemcpyBatchAsync", ceiling);
#endif
}

}  // namespace

void LoadDriver(DriverState* state) {
  if (state->status != LoadStatus::NotLoaded) return;
  dlerror();
  void* library = dlopen(state->libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    Fail(state, "library-missing", why != nullptr ? why : "dlopen failed");
    return;
  }
  // The library is never closed: drivers do not support being unloaded, and other drivers in
  // this process may share the handle.
  state->library = library;
  EntryPoints& cu = state->cu;
  Symbol(library, &cu.cuGetErrorName, "cuGetErrorName");
  Symbol(library, &cu.cuGetErrorString, "cuGetErrorString");
  if (!Symbol(library, &cu.cuInit, "cuInit") || !Symbol(library, &cu.cuDriverGetVersion, "cuDriverGetVersion")) {
    Fail(state, "entry-point-missing", "cuInit, cuDriverGetVersion");
    return;
  }
  CUresult result = cu.cuInit(0);
  if (result != CUDA_SUCCESS) {
    // The toolkit's stubs/libcuda.so loads but cannot run anything: as good as missing.
    const char* reason = result == CUDA_ERROR_NO_DEVICE       ? "no-device"
                         : result == CUDA_ERROR_STUB_LIBRARY ? "library-missing"
                                                             : "init-failed";
    Fail(state, reason, "cuInit failed: " + DescribeResult(cu, result));
    return;
  }
  int version = 0;
  result = cu.cuDriverGetVersion(&version);
  if (result != CUDA_SUCCESS) {
    Fail(state, "init-failed", "cuDriverGetVersion failed: " + DescribeResult(cu, result));
    return;
  }
  state->driverVersion = version;
  if (version < kMinimumDriverVersion || !Symbol(library, &cu.cuGetProcAddress, "cuGetProcAddress_v2")) {
    Fail(state, "driver-too-old", std::to_string(version));
    return;
  }
  ResolveAll(state);
  if (state->status == LoadStatus::NotLoaded) state->status = LoadStatus::Resolved;
}

std::vector<const char*> ResolvedOptionalSymbols(const DriverState* state) {
  const EntryPoints& cu = state->cu;
  std::vector<const char*> names;
#if CUDA_VERSION >= 12020
  if (cu.cuMemAdvise_v12020 != nullptr) names.push_back("cuMemAdvise_v2");
  if (cu.cuMemPrefetchAsync_v12020 != nullptr) names.push_back("cuMemPrefetchAsync_v2");
#endif
#if CUDA_VERSION >= 12080
  if (cu.cuMemcpyBatchAsync_v12080 != nullptr) names.push_back("cuMemcpyBatchAsync");
#endif
#if CUDA_VERSION >= 13000
  if (cu.cuMemcpyBatchAsync_v13000 != nullptr) names.push_back("cuMemcpyBatchAsync_v2");
  if (cu.cuMemPrefetchBatchAsync != nullptr) names.push_back("cuMemPrefetchBatchAsync");
  if (cu.cuMemDiscardBatchAsync != nullptr) names.push_back("cuMemDiscardBatchAsync");
  if (cu.cuMemDiscardAndPrefetchBatchAsync != nullptr) names.push_back("cuMemDiscardAndPrefetchBatchAsync");
  if (cu.cuMemGetMemPool != nullptr) names.push_back("cuMemGetMemPool");
  if (cu.cuMemGetDefaultMemPool != nullptr) names.push_back("cuMemGetDefaultMemPool");
#endif
  if (cu.cuFuncGetParamInfo != nullptr) names.push_back("cuFuncGetParamInfo");
  (void)cu;
  return names;
}

}  // namespace cumem
