// Every libcuda entry point cumem calls, in one table grouped by area, one line each: the
// exported symbol, the API name errors report, the ABI version (cudaTypedefs.h's
// PFN_<name>_v<version>) and each parameter as its C declaration beside the kind of value an
// adapter passes for it (entry-point-signature.ts). Both adapters come from it: the N-API addon's
// native/cuda-entry-points.h is generated from the C declarations (a driver-napi test keeps it
// equal; scripts/check-cuda-abi.mjs compares that header with cudaTypedefs.h), and the FFI adapter
// binds every row through koffi, with JS argument types derived from the kinds.
import { type EntryPointRow, loaderOnly, optional, required } from './entry-point-signature.js';

/** The table. Keys are the exported symbols. */
// biome-ignore format: a table, one entry point a line, as cudaTypedefs.h lists them
export const entryPointTable = Object.freeze({
  // --- Initialisation, errors, devices and contexts ----------------------------------------------------
  // The N-API addon resolves every other entry point through this one.
  cuGetProcAddress: loaderOnly('cuGetProcAddress', 12000, [['buffer', 'const char *symbol'], ['out', 'void **pfn'], ['int', 'int driverVersion'], ['ulonglong', 'cuuint64_t flags'], ['out', 'CUdriverProcAddressQueryResult *symbolFound']]),
  cuInit: required('cuInit', 'cuInit', 2000, [['uint', 'unsigned int Flags']]),
  cuDriverGetVersion: required('cuDriverGetVersion', 'cuDriverGetVersion', 2020, [['out', 'int *driverVersion']]),
  cuGetErrorName: required('cuGetErrorName', 'cuGetErrorName', 6000, [['int', 'CUresult error'], ['out', 'const char **pStr']]),
  cuGetErrorString: required('cuGetErrorString', 'cuGetErrorString', 6000, [['int', 'CUresult error'], ['out', 'const char **pStr']]),
  cuDeviceGet: required('cuDeviceGet', 'cuDeviceGet', 2000, [['out', 'CUdevice_v1 *device'], ['int', 'int ordinal']]),
  cuDeviceGetCount: required('cuDeviceGetCount', 'cuDeviceGetCount', 2000, [['out', 'int *count']]),
  cuDeviceGetName: required('cuDeviceGetName', 'cuDeviceGetName', 2000, [['buffer', 'char *name'], ['int', 'int len'], ['int', 'CUdevice_v1 dev']]),
  cuDeviceGetUuid_v2: required('cuDeviceGetUuid_v2', 'cuDeviceGetUuid', 11040, [['buffer', 'CUuuid *uuid'], ['int', 'CUdevice_v1 dev']]),
  cuDeviceTotalMem_v2: required('cuDeviceTotalMem_v2', 'cuDeviceTotalMem', 3020, [['out', 'size_t *bytes'], ['int', 'CUdevice_v1 dev']]),
  cuDeviceGetAttribute: required('cuDeviceGetAttribute', 'cuDeviceGetAttribute', 2000, [['out', 'int *pi'], ['int', 'CUdevice_attribute attrib'], ['int', 'CUdevice_v1 dev']]),
  cuDeviceGetDefaultMemPool: required('cuDeviceGetDefaultMemPool', 'cuDeviceGetDefaultMemPool', 11020, [['out', 'CUmemoryPool *pool_out'], ['int', 'CUdevice_v1 dev']]),
  cuDeviceGetMemPool: required('cuDeviceGetMemPool', 'cuDeviceGetMemPool', 11020, [['out', 'CUmemoryPool *pool'], ['int', 'CUdevice_v1 dev']]),
  cuDeviceCanAccessPeer: required('cuDeviceCanAccessPeer', 'cuDeviceCanAccessPeer', 4000, [['out', 'int *canAccessPeer'], ['int', 'CUdevice_v1 dev'], ['int', 'CUdevice_v1 peerDev']]),
  cuDeviceGetP2PAttribute: required('cuDeviceGetP2PAttribute', 'cuDeviceGetP2PAttribute', 8000, [['out', 'int *value'], ['int', 'CUdevice_P2PAttribute attrib'], ['int', 'CUdevice_v1 srcDevice'], ['int', 'CUdevice_v1 dstDevice']]),
  cuDevicePrimaryCtxRetain: required('cuDevicePrimaryCtxRetain', 'cuDevicePrimaryCtxRetain', 7000, [['out', 'CUcontext *pctx'], ['int', 'CUdevice_v1 dev']]),
  cuDevicePrimaryCtxRelease_v2: required('cuDevicePrimaryCtxRelease_v2', 'cuDevicePrimaryCtxRelease', 11000, [['int', 'CUdevice_v1 dev']]),
  cuCtxSetCurrent: required('cuCtxSetCurrent', 'cuCtxSetCurrent', 4000, [['handle', 'CUcontext ctx']]),
  cuCtxGetCurrent: required('cuCtxGetCurrent', 'cuCtxGetCurrent', 4000, [['out', 'CUcontext *pctx']]),
  cuCtxGetDevice: required('cuCtxGetDevice', 'cuCtxGetDevice', 2000, [['out', 'CUdevice_v1 *device']]),
  cuCtxSynchronize: required('cuCtxSynchronize', 'cuCtxSynchronize', 2000, []),
  cuMemGetInfo_v2: required('cuMemGetInfo_v2', 'cuMemGetInfo', 3020, [['out', 'size_t *free'], ['out', 'size_t *total']]),
  cuCtxGetStreamPriorityRange: required('cuCtxGetStreamPriorityRange', 'cuCtxGetStreamPriorityRange', 5050, [['out', 'int *leastPriority'], ['out', 'int *greatestPriority']]),
  cuCtxEnablePeerAccess: required('cuCtxEnablePeerAccess', 'cuCtxEnablePeerAccess', 4000, [['handle', 'CUcontext peerContext'], ['uint', 'unsigned int Flags']]),

  // --- Streams and events ------------------------------------------------------------------------------
  cuStreamCreateWithPriority: required('cuStreamCreateWithPriority', 'cuStreamCreateWithPriority', 5050, [['out', 'CUstream *phStream'], ['uint', 'unsigned int flags'], ['int', 'int priority']]),
  cuStreamDestroy_v2: required('cuStreamDestroy_v2', 'cuStreamDestroy', 4000, [['handle', 'CUstream hStream']]),
  cuStreamSynchronize: required('cuStreamSynchronize', 'cuStreamSynchronize', 2000, [['handle', 'CUstream hStream']]),
  cuStreamQuery: required('cuStreamQuery', 'cuStreamQuery', 2000, [['handle', 'CUstream hStream']]),
  cuStreamWaitEvent: required('cuStreamWaitEvent', 'cuStreamWaitEvent', 3020, [['handle', 'CUstream hStream'], ['handle', 'CUevent hEvent'], ['uint', 'unsigned int Flags']]),
  cuEventCreate: required('cuEventCreate', 'cuEventCreate', 2000, [['out', 'CUevent *phEvent'], ['uint', 'unsigned int Flags']]),
  cuEventDestroy_v2: required('cuEventDestroy_v2', 'cuEventDestroy', 4000, [['handle', 'CUevent hEvent']]),
  cuEventRecord: required('cuEventRecord', 'cuEventRecord', 2000, [['handle', 'CUevent hEvent'], ['handle', 'CUstream hStream']]),
  cuEventSynchronize: required('cuEventSynchronize', 'cuEventSynchronize', 2000, [['handle', 'CUevent hEvent']]),
  cuEventQuery: required('cuEventQuery', 'cuEventQuery', 2000, [['handle', 'CUevent hEvent']]),
  cuEventElapsedTime_v2: optional('cuEventElapsedTime_v2', 'cuEventElapsedTime', 12080, [['out', 'float *pMilliseconds'], ['handle', 'CUevent hStart'], ['handle', 'CUevent hEnd']]),
  cuEventElapsedTime: optional('cuEventElapsedTime', 'cuEventElapsedTime', 2000, [['out', 'float *pMilliseconds'], ['handle', 'CUevent hStart'], ['handle', 'CUevent hEnd']]),

  // --- Stream-ordered pools ----------------------------------------------------------------------------
  cuMemPoolCreate: required('cuMemPoolCreate', 'cuMemPoolCreate', 11020, [['out', 'CUmemoryPool *pool'], ['poolProps*', 'const CUmemPoolProps_v1 *poolProps']]),
  cuMemPoolDestroy: required('cuMemPoolDestroy', 'cuMemPoolDestroy', 11020, [['handle', 'CUmemoryPool pool']]),
  cuMemPoolSetAttribute: required('cuMemPoolSetAttribute', 'cuMemPoolSetAttribute', 11020, [['handle', 'CUmemoryPool pool'], ['int', 'CUmemPool_attribute attr'], ['out', 'void *value']]),
  cuMemPoolGetAttribute: required('cuMemPoolGetAttribute', 'cuMemPoolGetAttribute', 11020, [['handle', 'CUmemoryPool pool'], ['int', 'CUmemPool_attribute attr'], ['out', 'void *value']]),
  // The descriptors go packed (3 ints each), so one binding serves one descriptor or many.
  cuMemPoolSetAccess: required('cuMemPoolSetAccess', 'cuMemPoolSetAccess', 11020, [['handle', 'CUmemoryPool pool'], ['buffer', 'const CUmemAccessDesc_v1 *map'], ['size_t', 'size_t count']]),
  cuMemPoolGetAccess: required('cuMemPoolGetAccess', 'cuMemPoolGetAccess', 11020, [['out', 'CUmemAccess_flags *flags'], ['handle', 'CUmemoryPool memPool'], ['location*', 'CUmemLocation_v1 *location']]),
  cuMemPoolTrimTo: required('cuMemPoolTrimTo', 'cuMemPoolTrimTo', 11020, [['handle', 'CUmemoryPool pool'], ['size_t', 'size_t minBytesToKeep']]),
  cuMemAllocFromPoolAsync: required('cuMemAllocFromPoolAsync', 'cuMemAllocFromPoolAsync', 11020, [['out', 'CUdeviceptr_v2 *dptr'], ['size_t', 'size_t bytesize'], ['handle', 'CUmemoryPool pool'], ['handle', 'CUstream hStream']]),
  cuMemFreeAsync: required('cuMemFreeAsync', 'cuMemFreeAsync', 11020, [['handle', 'CUdeviceptr_v2 dptr'], ['handle', 'CUstream hStream']]),
  cuMemPoolExportToShareableHandle: required('cuMemPoolExportToShareableHandle', 'cuMemPoolExportToShareableHandle', 11020, [['out', 'void *handle_out'], ['handle', 'CUmemoryPool pool'], ['int', 'CUmemAllocationHandleType handleType'], ['ulonglong', 'unsigned long long flags']]),
  // For a POSIX file descriptor cuda.h says to pass `(void *)(uintptr_t)fd`: a pointer-sized integer.
  cuMemPoolImportFromShareableHandle: required('cuMemPoolImportFromShareableHandle', 'cuMemPoolImportFromShareableHandle', 11020, [['out', 'CUmemoryPool *pool_out'], ['intptr', 'void *handle'], ['int', 'CUmemAllocationHandleType handleType'], ['ulonglong', 'unsigned long long flags']]),
  cuMemPoolExportPointer: required('cuMemPoolExportPointer', 'cuMemPoolExportPointer', 11020, [['buffer', 'CUmemPoolPtrExportData_v1 *shareData_out'], ['handle', 'CUdeviceptr_v2 ptr']]),
  cuMemPoolImportPointer: required('cuMemPoolImportPointer', 'cuMemPoolImportPointer', 11020, [['out', 'CUdeviceptr_v2 *ptr_out'], ['handle', 'CUmemoryPool pool'], ['buffer', 'CUmemPoolPtrExportData_v1 *shareData']]),
  cuMemGetMemPool: optional('cuMemGetMemPool', 'cuMemGetMemPool', 13000, [['out', 'CUmemoryPool *pool_out'], ['location*', 'CUmemLocation *location'], ['int', 'CUmemAllocationType type']]),
  cuMemGetDefaultMemPool: optional('cuMemGetDefaultMemPool', 'cuMemGetDefaultMemPool', 13000, [['out', 'CUmemoryPool *pool_out'], ['location*', 'CUmemLocation *location'], ['int', 'CUmemAllocationType type']]),

  // --- Classic allocation, IPC, pageable host memory, managed memory, pointers -------------------------
  cuMemAlloc_v2: required('cuMemAlloc_v2', 'cuMemAlloc', 3020, [['out', 'CUdeviceptr_v2 *dptr'], ['size_t', 'size_t bytesize']]),
  cuMemFree_v2: required('cuMemFree_v2', 'cuMemFree', 3020, [['handle', 'CUdeviceptr_v2 dptr']]),
  cuMemHostAlloc: required('cuMemHostAlloc', 'cuMemHostAlloc', 2020, [['out', 'void **pp'], ['size_t', 'size_t bytesize'], ['uint', 'unsigned int Flags']]),
  cuMemFreeHost: required('cuMemFreeHost', 'cuMemFreeHost', 2000, [['handle', 'void *p']]),
  cuMemAllocManaged: required('cuMemAllocManaged', 'cuMemAllocManaged', 6000, [['out', 'CUdeviceptr_v2 *dptr'], ['size_t', 'size_t bytesize'], ['uint', 'unsigned int flags']]),
  cuIpcGetMemHandle: required('cuIpcGetMemHandle', 'cuIpcGetMemHandle', 4010, [['buffer', 'CUipcMemHandle_v1 *pHandle'], ['handle', 'CUdeviceptr_v2 dptr']]),
  cuIpcOpenMemHandle_v2: required('cuIpcOpenMemHandle_v2', 'cuIpcOpenMemHandle', 11000, [['out', 'CUdeviceptr_v2 *pdptr'], ['ipcHandle', 'CUipcMemHandle_v1 handle'], ['uint', 'unsigned int Flags']]),
  cuIpcCloseMemHandle: required('cuIpcCloseMemHandle', 'cuIpcCloseMemHandle', 4010, [['handle', 'CUdeviceptr_v2 dptr']]),
  cuIpcGetEventHandle: required('cuIpcGetEventHandle', 'cuIpcGetEventHandle', 4010, [['buffer', 'CUipcEventHandle_v1 *pHandle'], ['handle', 'CUevent event']]),
  cuIpcOpenEventHandle: required('cuIpcOpenEventHandle', 'cuIpcOpenEventHandle', 4010, [['out', 'CUevent *phEvent'], ['ipcHandle', 'CUipcEventHandle_v1 handle']]),
  cuMemHostRegister_v2: required('cuMemHostRegister_v2', 'cuMemHostRegister', 6050, [['hostAddress', 'void *p'], ['size_t', 'size_t bytesize'], ['uint', 'unsigned int Flags']]),
  cuMemHostUnregister: required('cuMemHostUnregister', 'cuMemHostUnregister', 4000, [['hostAddress', 'void *p']]),
  cuMemAdvise_v2: optional('cuMemAdvise_v2', 'cuMemAdvise', 12020, [['handle', 'CUdeviceptr_v2 devPtr'], ['size_t', 'size_t count'], ['int', 'CUmem_advise advice'], ['location', 'CUmemLocation_v1 location']]),
  // The CUDA 8.0 forms take a CUdevice (or CU_DEVICE_CPU = -1); CUDA 13 headers no longer declare them.
  cuMemAdvise: optional('cuMemAdvise', 'cuMemAdvise', 8000, [['handle', 'CUdeviceptr_v2 devPtr'], ['size_t', 'size_t count'], ['int', 'CUmem_advise advice'], ['int', 'CUdevice_v1 device']]),
  cuMemPrefetchAsync_v2: optional('cuMemPrefetchAsync_v2', 'cuMemPrefetchAsync', 12020, [['handle', 'CUdeviceptr_v2 devPtr'], ['size_t', 'size_t count'], ['location', 'CUmemLocation_v1 location'], ['uint', 'unsigned int flags'], ['handle', 'CUstream hStream']]),
  cuMemPrefetchAsync: optional('cuMemPrefetchAsync', 'cuMemPrefetchAsync', 8000, [['handle', 'CUdeviceptr_v2 devPtr'], ['size_t', 'size_t count'], ['int', 'CUdevice_v1 dstDevice'], ['handle', 'CUstream hStream']]),
  cuMemPrefetchBatchAsync: optional('cuMemPrefetchBatchAsync', 'cuMemPrefetchBatchAsync', 13000, [['buffer', 'CUdeviceptr_v2 *dptrs'], ['buffer', 'size_t *sizes'], ['size_t', 'size_t count'], ['buffer', 'CUmemLocation_v1 *prefetchLocs'], ['buffer', 'size_t *prefetchLocIdxs'], ['size_t', 'size_t numPrefetchLocs'], ['ulonglong', 'unsigned long long flags'], ['handle', 'CUstream hStream']]),
  cuMemDiscardBatchAsync: optional('cuMemDiscardBatchAsync', 'cuMemDiscardBatchAsync', 13000, [['buffer', 'CUdeviceptr_v2 *dptrs'], ['buffer', 'size_t *sizes'], ['size_t', 'size_t count'], ['ulonglong', 'unsigned long long flags'], ['handle', 'CUstream hStream']]),
  cuMemDiscardAndPrefetchBatchAsync: optional('cuMemDiscardAndPrefetchBatchAsync', 'cuMemDiscardAndPrefetchBatchAsync', 13000, [['buffer', 'CUdeviceptr_v2 *dptrs'], ['buffer', 'size_t *sizes'], ['size_t', 'size_t count'], ['buffer', 'CUmemLocation_v1 *prefetchLocs'], ['buffer', 'size_t *prefetchLocIdxs'], ['size_t', 'size_t numPrefetchLocs'], ['ulonglong', 'unsigned long long flags'], ['handle', 'CUstream hStream']]),
  cuMemRangeGetAttribute: required('cuMemRangeGetAttribute', 'cuMemRangeGetAttribute', 8000, [['out', 'void *data'], ['size_t', 'size_t dataSize'], ['int', 'CUmem_range_attribute attribute'], ['handle', 'CUdeviceptr_v2 devPtr'], ['size_t', 'size_t count']]),
  cuPointerGetAttribute: required('cuPointerGetAttribute', 'cuPointerGetAttribute', 4000, [['out', 'void *data'], ['int', 'CUpointer_attribute attribute'], ['handle', 'CUdeviceptr_v2 ptr']]),

  // --- Copies and fills --------------------------------------------------------------------------------
  cuMemcpyAsync: required('cuMemcpyAsync', 'cuMemcpyAsync', 4000, [['handle', 'CUdeviceptr_v2 dst'], ['handle', 'CUdeviceptr_v2 src'], ['size_t', 'size_t ByteCount'], ['handle', 'CUstream hStream']]),
  cuMemcpyHtoDAsync_v2: required('cuMemcpyHtoDAsync_v2', 'cuMemcpyHtoDAsync', 3020, [['handle', 'CUdeviceptr_v2 dstDevice'], ['hostAddress', 'const void *srcHost'], ['size_t', 'size_t ByteCount'], ['handle', 'CUstream hStream']]),
  cuMemcpyDtoHAsync_v2: required('cuMemcpyDtoHAsync_v2', 'cuMemcpyDtoHAsync', 3020, [['hostAddress', 'void *dstHost'], ['handle', 'CUdeviceptr_v2 srcDevice'], ['size_t', 'size_t ByteCount'], ['handle', 'CUstream hStream']]),
  cuMemcpyHtoD_v2: required('cuMemcpyHtoD_v2', 'cuMemcpyHtoD', 3020, [['handle', 'CUdeviceptr_v2 dstDevice'], ['hostAddress', 'const void *srcHost'], ['size_t', 'size_t ByteCount']]),
  cuMemcpyDtoH_v2: required('cuMemcpyDtoH_v2', 'cuMemcpyDtoH', 3020, [['hostAddress', 'void *dstHost'], ['handle', 'CUdeviceptr_v2 srcDevice'], ['size_t', 'size_t ByteCount']]),
  cuMemcpy2DAsync_v2: required('cuMemcpy2DAsync_v2', 'cuMemcpy2DAsync', 3020, [['memcpy2D*', 'const CUDA_MEMCPY2D_v2 *pCopy'], ['handle', 'CUstream hStream']]),
  cuMemcpy3DAsync_v2: required('cuMemcpy3DAsync_v2', 'cuMemcpy3DAsync', 3020, [['memcpy3D*', 'const CUDA_MEMCPY3D_v2 *pCopy'], ['handle', 'CUstream hStream']]),
  // CUDA 13 dropped the `size_t *failIdx` parameter: `_v2` has 8 parameters, the 12.8 symbol 9.
  cuMemcpyBatchAsync_v2: optional('cuMemcpyBatchAsync_v2', 'cuMemcpyBatchAsync', 13000, [['buffer', 'CUdeviceptr_v2 *dsts'], ['buffer', 'CUdeviceptr_v2 *srcs'], ['buffer', 'size_t *sizes'], ['size_t', 'size_t count'], ['memcpyAttributes*', 'CUmemcpyAttributes_v1 *attrs'], ['buffer', 'size_t *attrIdxs'], ['size_t', 'size_t numAttrs'], ['handle', 'CUstream hStream']]),
  cuMemcpyBatchAsync: optional('cuMemcpyBatchAsync', 'cuMemcpyBatchAsync', 12080, [['buffer', 'CUdeviceptr_v2 *dsts'], ['buffer', 'CUdeviceptr_v2 *srcs'], ['buffer', 'size_t *sizes'], ['size_t', 'size_t count'], ['memcpyAttributes*', 'CUmemcpyAttributes_v1 *attrs'], ['buffer', 'size_t *attrIdxs'], ['size_t', 'size_t numAttrs'], ['out', 'size_t *failIdx'], ['handle', 'CUstream hStream']]),
  cuMemsetD8Async: required('cuMemsetD8Async', 'cuMemsetD8Async', 3020, [['handle', 'CUdeviceptr_v2 dstDevice'], ['uint8', 'unsigned char uc'], ['size_t', 'size_t N'], ['handle', 'CUstream hStream']]),
  cuMemsetD16Async: required('cuMemsetD16Async', 'cuMemsetD16Async', 3020, [['handle', 'CUdeviceptr_v2 dstDevice'], ['uint16', 'unsigned short us'], ['size_t', 'size_t N'], ['handle', 'CUstream hStream']]),
  cuMemsetD32Async: required('cuMemsetD32Async', 'cuMemsetD32Async', 3020, [['handle', 'CUdeviceptr_v2 dstDevice'], ['uint', 'unsigned int ui'], ['size_t', 'size_t N'], ['handle', 'CUstream hStream']]),
  cuMemcpyPeerAsync: required('cuMemcpyPeerAsync', 'cuMemcpyPeerAsync', 4000, [['handle', 'CUdeviceptr_v2 dstDevice'], ['handle', 'CUcontext dstContext'], ['handle', 'CUdeviceptr_v2 srcDevice'], ['handle', 'CUcontext srcContext'], ['size_t', 'size_t ByteCount'], ['handle', 'CUstream hStream']]),

  // --- Compute: optional, so a libcuda without them (a test double) still loads ------------------------
  cuLibraryLoadData: optional('cuLibraryLoadData', 'cuLibraryLoadData', 12000, [['out', 'CUlibrary *library'], ['buffer', 'const void *code'], ['hostAddress', 'CUjit_option *jitOptions'], ['hostAddress', 'void **jitOptionsValues'], ['uint', 'unsigned int numJitOptions'], ['hostAddress', 'CUlibraryOption *libraryOptions'], ['hostAddress', 'void **libraryOptionValues'], ['uint', 'unsigned int numLibraryOptions']]),
  cuLibraryUnload: optional('cuLibraryUnload', 'cuLibraryUnload', 12000, [['handle', 'CUlibrary library']]),
  cuLibraryGetKernel: optional('cuLibraryGetKernel', 'cuLibraryGetKernel', 12000, [['out', 'CUkernel *pKernel'], ['handle', 'CUlibrary library'], ['buffer', 'const char *name']]),
  cuKernelGetFunction: optional('cuKernelGetFunction', 'cuKernelGetFunction', 12000, [['out', 'CUfunction *pFunc'], ['handle', 'CUkernel kernel']]),
  cuFuncGetAttribute: optional('cuFuncGetAttribute', 'cuFuncGetAttribute', 2020, [['out', 'int *pi'], ['int', 'CUfunction_attribute attrib'], ['handle', 'CUfunction hfunc']]),
  cuFuncSetAttribute: optional('cuFuncSetAttribute', 'cuFuncSetAttribute', 9000, [['handle', 'CUfunction hfunc'], ['int', 'CUfunction_attribute attrib'], ['int', 'int value']]),
  cuFuncGetParamInfo: optional('cuFuncGetParamInfo', 'cuFuncGetParamInfo', 12040, [['handle', 'CUfunction func'], ['size_t', 'size_t paramIndex'], ['out', 'size_t *paramOffset'], ['out', 'size_t *paramSize']]),
  cuLaunchKernelEx: optional('cuLaunchKernelEx', 'cuLaunchKernelEx', 11060, [['hostAddress', 'const CUlaunchConfig *config'], ['handle', 'CUfunction f'], ['hostAddress', 'void **kernelParams'], ['hostAddress', 'void **extra']]),
  cuOccupancyMaxActiveBlocksPerMultiprocessor: optional('cuOccupancyMaxActiveBlocksPerMultiprocessor', 'cuOccupancyMaxActiveBlocksPerMultiprocessor', 6050, [['out', 'int *numBlocks'], ['handle', 'CUfunction func'], ['int', 'int blockSize'], ['size_t', 'size_t dynamicSMemSize']]),
  cuOccupancyMaxPotentialBlockSize: optional('cuOccupancyMaxPotentialBlockSize', 'cuOccupancyMaxPotentialBlockSize', 6050, [['out', 'int *minGridSize'], ['out', 'int *blockSize'], ['handle', 'CUfunction func'], ['hostAddress', 'CUoccupancyB2DSize blockSizeToDynamicSMemSize'], ['size_t', 'size_t dynamicSMemSize'], ['int', 'int blockSizeLimit']]),

  // --- Virtual memory management (CUDA 10.2: every supported driver has them) --------------------------
  cuMemAddressReserve: required('cuMemAddressReserve', 'cuMemAddressReserve', 10020, [['out', 'CUdeviceptr_v2 *ptr'], ['size_t', 'size_t size'], ['size_t', 'size_t alignment'], ['handle', 'CUdeviceptr_v2 addr'], ['ulonglong', 'unsigned long long flags']]),
  cuMemAddressFree: required('cuMemAddressFree', 'cuMemAddressFree', 10020, [['handle', 'CUdeviceptr_v2 ptr'], ['size_t', 'size_t size']]),
  cuMemCreate: required('cuMemCreate', 'cuMemCreate', 10020, [['out', 'CUmemGenericAllocationHandle_v1 *handle'], ['size_t', 'size_t size'], ['buffer', 'const CUmemAllocationProp_v1 *prop'], ['ulonglong', 'unsigned long long flags']]),
  cuMemRelease: required('cuMemRelease', 'cuMemRelease', 10020, [['handle', 'CUmemGenericAllocationHandle_v1 handle']]),
  cuMemMap: required('cuMemMap', 'cuMemMap', 10020, [['handle', 'CUdeviceptr_v2 ptr'], ['size_t', 'size_t size'], ['size_t', 'size_t offset'], ['handle', 'CUmemGenericAllocationHandle_v1 handle'], ['ulonglong', 'unsigned long long flags']]),
  cuMemUnmap: required('cuMemUnmap', 'cuMemUnmap', 10020, [['handle', 'CUdeviceptr_v2 ptr'], ['size_t', 'size_t size']]),
  cuMemSetAccess: required('cuMemSetAccess', 'cuMemSetAccess', 10020, [['handle', 'CUdeviceptr_v2 ptr'], ['size_t', 'size_t size'], ['buffer', 'const CUmemAccessDesc_v1 *desc'], ['size_t', 'size_t count']]),
  cuMemGetAccess: required('cuMemGetAccess', 'cuMemGetAccess', 10020, [['out', 'unsigned long long *flags'], ['location*', 'const CUmemLocation_v1 *location'], ['handle', 'CUdeviceptr_v2 ptr']]),
  cuMemExportToShareableHandle: required('cuMemExportToShareableHandle', 'cuMemExportToShareableHandle', 10020, [['out', 'void *shareableHandle'], ['handle', 'CUmemGenericAllocationHandle_v1 handle'], ['int', 'CUmemAllocationHandleType handleType'], ['ulonglong', 'unsigned long long flags']]),
  // A POSIX file descriptor travels as the pointer-sized value of the descriptor.
  cuMemImportFromShareableHandle: required('cuMemImportFromShareableHandle', 'cuMemImportFromShareableHandle', 10020, [['out', 'CUmemGenericAllocationHandle_v1 *handle'], ['intptr', 'void *osHandle'], ['int', 'CUmemAllocationHandleType shHandleType']]),
  cuMemGetAllocationGranularity: required('cuMemGetAllocationGranularity', 'cuMemGetAllocationGranularity', 10020, [['out', 'size_t *granularity'], ['allocationProp*', 'const CUmemAllocationProp_v1 *prop'], ['int', 'CUmemAllocationGranularity_flags option']]),
  cuMemGetAllocationPropertiesFromHandle: required('cuMemGetAllocationPropertiesFromHandle', 'cuMemGetAllocationPropertiesFromHandle', 10020, [['out', 'CUmemAllocationProp_v1 *prop'], ['handle', 'CUmemGenericAllocationHandle_v1 handle']]),
} as const satisfies Readonly<Record<string, EntryPointRow>>);

/** The table's type. */
export type EntryPointTable = typeof entryPointTable;
/** A symbol of the table. */
export type EntryPointSymbol = keyof EntryPointTable;
/** The symbols the adapters call (all but the N-API loader's own `cuGetProcAddress`). */
export type CalledEntryPointSymbol = {
  [S in EntryPointSymbol]: EntryPointTable[S]['loaderOnly'] extends true ? never : S;
}[EntryPointSymbol];
/** A public entry point name, as `CudaError.call` reports it. */
export type EntryPointName = EntryPointTable[CalledEntryPointSymbol]['name'];
