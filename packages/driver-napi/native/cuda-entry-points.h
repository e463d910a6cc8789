// GENERATED from driver-kit's entry-point table (packages/driver-kit/src/entry-point-table/) by
// src/cuda-entry-points-header.test.ts: edit the table, then run
// `npx vitest run -u src/cuda-entry-points-header.test.ts` in packages/driver-napi.
//
// The signatures of the driver entry points the addon resolves, one typedef per (name, ABI
// version) as NVIDIA's cudaTypedefs.h spells them: PFN_<name>_v<ABI>. The slot of each entry
// point in DriverState is typed with the typedef of the ABI it is resolved at, so a driver can
// never hand the addon a different signature; scripts/check-cuda-abi.mjs compares every typedef
// with cudaTypedefs.h.
#pragma once

// scripts/check-cuda-abi.mjs defines CUMEM_PFN to declare these under other names beside
// cudaTypedefs.h's (over cuda.h's types), and compares the two.
#ifndef CUMEM_PFN
#include "cuda-types.h"
#define CUMEM_PFN(name) name
#endif

typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuGetProcAddress_v12000))(const char *symbol, void **pfn, int driverVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *symbolFound);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuInit_v2000))(unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDriverGetVersion_v2020))(int *driverVersion);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuGetErrorName_v6000))(CUresult error, const char **pStr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuGetErrorString_v6000))(CUresult error, const char **pStr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGet_v2000))(CUdevice_v1 *device, int ordinal);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetCount_v2000))(int *count);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetName_v2000))(char *name, int len, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetUuid_v11040))(CUuuid *uuid, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceTotalMem_v3020))(size_t *bytes, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetAttribute_v2000))(int *pi, CUdevice_attribute attrib, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetDefaultMemPool_v11020))(CUmemoryPool *pool_out, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetMemPool_v11020))(CUmemoryPool *pool, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceCanAccessPeer_v4000))(int *canAccessPeer, CUdevice_v1 dev, CUdevice_v1 peerDev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDeviceGetP2PAttribute_v8000))(int *value, CUdevice_P2PAttribute attrib, CUdevice_v1 srcDevice, CUdevice_v1 dstDevice);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDevicePrimaryCtxRetain_v7000))(CUcontext *pctx, CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuDevicePrimaryCtxRelease_v11000))(CUdevice_v1 dev);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuCtxSetCurrent_v4000))(CUcontext ctx);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuCtxGetCurrent_v4000))(CUcontext *pctx);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuCtxGetDevice_v2000))(CUdevice_v1 *device);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuCtxSynchronize_v2000))(void);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemGetInfo_v3020))(size_t *free, size_t *total);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuCtxGetStreamPriorityRange_v5050))(int *leastPriority, int *greatestPriority);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuCtxEnablePeerAccess_v4000))(CUcontext peerContext, unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuStreamCreateWithPriority_v5050))(CUstream *phStream, unsigned int flags, int priority);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuStreamDestroy_v4000))(CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuStreamSynchronize_v2000))(CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuStreamQuery_v2000))(CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuStreamWaitEvent_v3020))(CUstream hStream, CUevent hEvent, unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventCreate_v2000))(CUevent *phEvent, unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventDestroy_v4000))(CUevent hEvent);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventRecord_v2000))(CUevent hEvent, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventSynchronize_v2000))(CUevent hEvent);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventQuery_v2000))(CUevent hEvent);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventElapsedTime_v12080))(float *pMilliseconds, CUevent hStart, CUevent hEnd);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuEventElapsedTime_v2000))(float *pMilliseconds, CUevent hStart, CUevent hEnd);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolCreate_v11020))(CUmemoryPool *pool, const CUmemPoolProps_v1 *poolProps);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolDestroy_v11020))(CUmemoryPool pool);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolSetAttribute_v11020))(CUmemoryPool pool, CUmemPool_attribute attr, void *value);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolGetAttribute_v11020))(CUmemoryPool pool, CUmemPool_attribute attr, void *value);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolSetAccess_v11020))(CUmemoryPool pool, const CUmemAccessDesc_v1 *map, size_t count);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolGetAccess_v11020))(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation_v1 *location);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolTrimTo_v11020))(CUmemoryPool pool, size_t minBytesToKeep);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAllocFromPoolAsync_v11020))(CUdeviceptr_v2 *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemFreeAsync_v11020))(CUdeviceptr_v2 dptr, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolExportToShareableHandle_v11020))(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolImportFromShareableHandle_v11020))(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolExportPointer_v11020))(CUmemPoolPtrExportData_v1 *shareData_out, CUdeviceptr_v2 ptr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPoolImportPointer_v11020))(CUdeviceptr_v2 *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData_v1 *shareData);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemGetMemPool_v13000))(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemGetDefaultMemPool_v13000))(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAlloc_v3020))(CUdeviceptr_v2 *dptr, size_t bytesize);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemFree_v3020))(CUdeviceptr_v2 dptr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemHostAlloc_v2020))(void **pp, size_t bytesize, unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemFreeHost_v2000))(void *p);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAllocManaged_v6000))(CUdeviceptr_v2 *dptr, size_t bytesize, unsigned int flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuIpcGetMemHandle_v4010))(CUipcMemHandle_v1 *pHandle, CUdeviceptr_v2 dptr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuIpcOpenMemHandle_v11000))(CUdeviceptr_v2 *pdptr, CUipcMemHandle_v1 handle, unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuIpcCloseMemHandle_v4010))(CUdeviceptr_v2 dptr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuIpcGetEventHandle_v4010))(CUipcEventHandle_v1 *pHandle, CUevent event);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuIpcOpenEventHandle_v4010))(CUevent *phEvent, CUipcEventHandle_v1 handle);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemHostRegister_v6050))(void *p, size_t bytesize, unsigned int Flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemHostUnregister_v4000))(void *p);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAdvise_v12020))(CUdeviceptr_v2 devPtr, size_t count, CUmem_advise advice, CUmemLocation_v1 location);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAdvise_v8000))(CUdeviceptr_v2 devPtr, size_t count, CUmem_advise advice, CUdevice_v1 device);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPrefetchAsync_v12020))(CUdeviceptr_v2 devPtr, size_t count, CUmemLocation_v1 location, unsigned int flags, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPrefetchAsync_v8000))(CUdeviceptr_v2 devPtr, size_t count, CUdevice_v1 dstDevice, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemPrefetchBatchAsync_v13000))(CUdeviceptr_v2 *dptrs, size_t *sizes, size_t count, CUmemLocation_v1 *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemDiscardBatchAsync_v13000))(CUdeviceptr_v2 *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemDiscardAndPrefetchBatchAsync_v13000))(CUdeviceptr_v2 *dptrs, size_t *sizes, size_t count, CUmemLocation_v1 *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemRangeGetAttribute_v8000))(void *data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr_v2 devPtr, size_t count);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuPointerGetAttribute_v4000))(void *data, CUpointer_attribute attribute, CUdeviceptr_v2 ptr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyAsync_v4000))(CUdeviceptr_v2 dst, CUdeviceptr_v2 src, size_t ByteCount, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyHtoDAsync_v3020))(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyDtoHAsync_v3020))(void *dstHost, CUdeviceptr_v2 srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyHtoD_v3020))(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyDtoH_v3020))(void *dstHost, CUdeviceptr_v2 srcDevice, size_t ByteCount);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpy2DAsync_v3020))(const CUDA_MEMCPY2D_v2 *pCopy, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpy3DAsync_v3020))(const CUDA_MEMCPY3D_v2 *pCopy, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyBatchAsync_v13000))(CUdeviceptr_v2 *dsts, CUdeviceptr_v2 *srcs, size_t *sizes, size_t count, CUmemcpyAttributes_v1 *attrs, size_t *attrIdxs, size_t numAttrs, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyBatchAsync_v12080))(CUdeviceptr_v2 *dsts, CUdeviceptr_v2 *srcs, size_t *sizes, size_t count, CUmemcpyAttributes_v1 *attrs, size_t *attrIdxs, size_t numAttrs, size_t *failIdx, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemsetD8Async_v3020))(CUdeviceptr_v2 dstDevice, unsigned char uc, size_t N, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemsetD16Async_v3020))(CUdeviceptr_v2 dstDevice, unsigned short us, size_t N, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemsetD32Async_v3020))(CUdeviceptr_v2 dstDevice, unsigned int ui, size_t N, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemcpyPeerAsync_v4000))(CUdeviceptr_v2 dstDevice, CUcontext dstContext, CUdeviceptr_v2 srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuLibraryLoadData_v12000))(CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues, unsigned int numLibraryOptions);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuLibraryUnload_v12000))(CUlibrary library);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuLibraryGetKernel_v12000))(CUkernel *pKernel, CUlibrary library, const char *name);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuKernelGetFunction_v12000))(CUfunction *pFunc, CUkernel kernel);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuFuncGetAttribute_v2020))(int *pi, CUfunction_attribute attrib, CUfunction hfunc);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuFuncSetAttribute_v9000))(CUfunction hfunc, CUfunction_attribute attrib, int value);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuFuncGetParamInfo_v12040))(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuLaunchKernelEx_v11060))(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050))(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuOccupancyMaxPotentialBlockSize_v6050))(int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAddressReserve_v10020))(CUdeviceptr_v2 *ptr, size_t size, size_t alignment, CUdeviceptr_v2 addr, unsigned long long flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemAddressFree_v10020))(CUdeviceptr_v2 ptr, size_t size);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemCreate_v10020))(CUmemGenericAllocationHandle_v1 *handle, size_t size, const CUmemAllocationProp_v1 *prop, unsigned long long flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemRelease_v10020))(CUmemGenericAllocationHandle_v1 handle);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemMap_v10020))(CUdeviceptr_v2 ptr, size_t size, size_t offset, CUmemGenericAllocationHandle_v1 handle, unsigned long long flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemUnmap_v10020))(CUdeviceptr_v2 ptr, size_t size);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemSetAccess_v10020))(CUdeviceptr_v2 ptr, size_t size, const CUmemAccessDesc_v1 *desc, size_t count);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemGetAccess_v10020))(unsigned long long *flags, const CUmemLocation_v1 *location, CUdeviceptr_v2 ptr);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemExportToShareableHandle_v10020))(void *shareableHandle, CUmemGenericAllocationHandle_v1 handle, CUmemAllocationHandleType handleType, unsigned long long flags);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemImportFromShareableHandle_v10020))(CUmemGenericAllocationHandle_v1 *handle, void *osHandle, CUmemAllocationHandleType shHandleType);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemGetAllocationGranularity_v10020))(size_t *granularity, const CUmemAllocationProp_v1 *prop, CUmemAllocationGranularity_flags option);
typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_cuMemGetAllocationPropertiesFromHandle_v10020))(CUmemAllocationProp_v1 *prop, CUmemGenericAllocationHandle_v1 handle);
