// Every libcuda entry point the adapter calls, in one table grouped by area. Each entry names the
// exact exported symbol (the versioned name cuda.h's macros map to, e.g. `cuMemAlloc_v2`), the
// public name used in errors, the CUDA version that introduced that symbol, and its parameters as
// a small vocabulary of kinds. The JS signature of every bound function is derived from the kinds,
// so a call with the wrong arguments fails to compile. Parameters were copied from cuda.h 13.0;
// testing/fake-libcuda defines every symbol against that header, so the compiler checks them too.

import { computeEntryPoints } from './bindings-compute.js';
import { pageableEntryPoints } from './bindings-pageable.js';
import { poolQueryEntryPoints } from './bindings-pool-queries.js';
import { virtualMemoryEntryPoints } from './bindings-virtual-memory.js';
import { entry, optionalEntry, type ParameterKind, type ParameterKinds } from './entry-point-spec.js';

export type { EntryPointSpec, ParameterKind, ParameterKinds } from './entry-point-spec.js';

/** The table. Keys are the symbols; `since` values are the `PFN_<name>_v<version>` of cudaTypedefs.h. */
export const entryPoints = {
  // --- Initialisation and errors ------------------------------------------------------------------
  cuInit: entry('cuInit', 'cuInit', 2000, ['uint']),
  cuDriverGetVersion: entry('cuDriverGetVersion', 'cuDriverGetVersion', 2020, ['out']),
  cuGetErrorName: entry('cuGetErrorName', 'cuGetErrorName', 6000, ['int', 'out']),
  cuGetErrorString: entry('cuGetErrorString', 'cuGetErrorString', 6000, ['int', 'out']),

  // --- Devices ---------------------------------------------------------------------------------------
  cuDeviceGet: entry('cuDeviceGet', 'cuDeviceGet', 2000, ['out', 'int']),
  cuDeviceGetCount: entry('cuDeviceGetCount', 'cuDeviceGetCount', 2000, ['out']),
  cuDeviceGetName: entry('cuDeviceGetName', 'cuDeviceGetName', 2000, ['buffer', 'int', 'int']),
  cuDeviceGetUuid_v2: entry('cuDeviceGetUuid_v2', 'cuDeviceGetUuid', 11040, ['buffer', 'int']),
  cuDeviceTotalMem_v2: entry('cuDeviceTotalMem_v2', 'cuDeviceTotalMem', 3020, ['out', 'int']),
  cuDeviceGetAttribute: entry('cuDeviceGetAttribute', 'cuDeviceGetAttribute', 2000, ['out', 'int', 'int']),
  cuDeviceGetDefaultMemPool: entry('cuDeviceGetDefaultMemPool', 'cuDeviceGetDefaultMemPool', 11020, [
    'out',
    'int',
  ]),
  cuDeviceGetMemPool: entry('cuDeviceGetMemPool', 'cuDeviceGetMemPool', 11020, ['out', 'int']),
  cuDeviceCanAccessPeer: entry('cuDeviceCanAccessPeer', 'cuDeviceCanAccessPeer', 4000, ['out', 'int', 'int']),
  cuDeviceGetP2PAttribute: entry('cuDeviceGetP2PAttribute', 'cuDeviceGetP2PAttribute', 8000, [
    'out',
    'int',
    'int',
    'int',
  ]),

  // --- Contexts --------------------------------------------------------------------------------------
  cuDevicePrimaryCtxRetain: entry('cuDevicePrimaryCtxRetain', 'cuDevicePrimaryCtxRetain', 7000, [
    'out',
    'int',
  ]),
  cuDevicePrimaryCtxRelease_v2: entry('cuDevicePrimaryCtxRelease_v2', 'cuDevicePrimaryCtxRelease', 11000, [
    'int',
  ]),
  cuCtxSetCurrent: entry('cuCtxSetCurrent', 'cuCtxSetCurrent', 4000, ['handle']),
  cuCtxGetCurrent: entry('cuCtxGetCurrent', 'cuCtxGetCurrent', 4000, ['out']),
  cuCtxGetDevice: entry('cuCtxGetDevice', 'cuCtxGetDevice', 2000, ['out']),
  cuCtxSynchronize: entry('cuCtxSynchronize', 'cuCtxSynchronize', 2000, []),
  cuMemGetInfo_v2: entry('cuMemGetInfo_v2', 'cuMemGetInfo', 3020, ['out', 'out']),
  cuCtxGetStreamPriorityRange: entry('cuCtxGetStreamPriorityRange', 'cuCtxGetStreamPriorityRange', 5050, [
    'out',
    'out',
  ]),
  cuCtxEnablePeerAccess: entry('cuCtxEnablePeerAccess', 'cuCtxEnablePeerAccess', 4000, ['handle', 'uint']),

  // --- Streams and events ------------------------------------------------------------------------------
  cuStreamCreateWithPriority: entry('cuStreamCreateWithPriority', 'cuStreamCreateWithPriority', 5050, [
    'out',
    'uint',
    'int',
  ]),
  cuStreamDestroy_v2: entry('cuStreamDestroy_v2', 'cuStreamDestroy', 4000, ['handle']),
  cuStreamSynchronize: entry('cuStreamSynchronize', 'cuStreamSynchronize', 2000, ['handle']),
  cuStreamQuery: entry('cuStreamQuery', 'cuStreamQuery', 2000, ['handle']),
  cuStreamWaitEvent: entry('cuStreamWaitEvent', 'cuStreamWaitEvent', 3020, ['handle', 'handle', 'uint']),
  cuEventCreate: entry('cuEventCreate', 'cuEventCreate', 2000, ['out', 'uint']),
  cuEventDestroy_v2: entry('cuEventDestroy_v2', 'cuEventDestroy', 4000, ['handle']),
  cuEventRecord: entry('cuEventRecord', 'cuEventRecord', 2000, ['handle', 'handle']),
  cuEventSynchronize: entry('cuEventSynchronize', 'cuEventSynchronize', 2000, ['handle']),
  cuEventQuery: entry('cuEventQuery', 'cuEventQuery', 2000, ['handle']),
  cuEventElapsedTime_v2: optionalEntry('cuEventElapsedTime_v2', 'cuEventElapsedTime', 12080, [
    'out',
    'handle',
    'handle',
  ]),
  cuEventElapsedTime: optionalEntry('cuEventElapsedTime', 'cuEventElapsedTime', 2000, [
    'out',
    'handle',
    'handle',
  ]),

  // --- Stream-ordered pools ----------------------------------------------------------------------------
  cuMemPoolCreate: entry('cuMemPoolCreate', 'cuMemPoolCreate', 11020, ['out', 'poolProps*']),
  cuMemPoolDestroy: entry('cuMemPoolDestroy', 'cuMemPoolDestroy', 11020, ['handle']),
  cuMemPoolSetAttribute: entry('cuMemPoolSetAttribute', 'cuMemPoolSetAttribute', 11020, [
    'handle',
    'int',
    'out',
  ]),
  cuMemPoolGetAttribute: entry('cuMemPoolGetAttribute', 'cuMemPoolGetAttribute', 11020, [
    'handle',
    'int',
    'out',
  ]),
  // The descriptors go as packed `CUmemAccessDesc` (3 ints each, see ffi-pool-access.ts), so one
  // binding serves one descriptor or many.
  cuMemPoolSetAccess: entry('cuMemPoolSetAccess', 'cuMemPoolSetAccess', 11020, [
    'handle',
    'buffer',
    'size_t',
  ]),
  cuMemPoolGetAccess: entry('cuMemPoolGetAccess', 'cuMemPoolGetAccess', 11020, [
    'out',
    'handle',
    'location*',
  ]),
  cuMemPoolTrimTo: entry('cuMemPoolTrimTo', 'cuMemPoolTrimTo', 11020, ['handle', 'size_t']),
  cuMemAllocFromPoolAsync: entry('cuMemAllocFromPoolAsync', 'cuMemAllocFromPoolAsync', 11020, [
    'out',
    'size_t',
    'handle',
    'handle',
  ]),
  cuMemFreeAsync: entry('cuMemFreeAsync', 'cuMemFreeAsync', 11020, ['handle', 'handle']),
  cuMemPoolExportToShareableHandle: entry(
    'cuMemPoolExportToShareableHandle',
    'cuMemPoolExportToShareableHandle',
    11020,
    ['out', 'handle', 'int', 'ulonglong'],
  ),
  // The handle parameter is `void *`; for a POSIX file descriptor cuda.h says to pass
  // `(void *)(uintptr_t)fd`, so the descriptor travels as a pointer-sized integer.
  cuMemPoolImportFromShareableHandle: entry(
    'cuMemPoolImportFromShareableHandle',
    'cuMemPoolImportFromShareableHandle',
    11020,
    ['out', 'intptr', 'int', 'ulonglong'],
  ),
  cuMemPoolExportPointer: entry('cuMemPoolExportPointer', 'cuMemPoolExportPointer', 11020, [
    'buffer',
    'handle',
  ]),
  cuMemPoolImportPointer: entry('cuMemPoolImportPointer', 'cuMemPoolImportPointer', 11020, [
    'out',
    'handle',
    'buffer',
  ]),

  // --- Classic allocation --------------------------------------------------------------------------------
  cuMemAlloc_v2: entry('cuMemAlloc_v2', 'cuMemAlloc', 3020, ['out', 'size_t']),
  cuMemFree_v2: entry('cuMemFree_v2', 'cuMemFree', 3020, ['handle']),
  cuMemHostAlloc: entry('cuMemHostAlloc', 'cuMemHostAlloc', 2020, ['out', 'size_t', 'uint']),
  cuMemFreeHost: entry('cuMemFreeHost', 'cuMemFreeHost', 2000, ['handle']),
  ...pageableEntryPoints,
  ...poolQueryEntryPoints,
  ...computeEntryPoints,
  cuMemAllocManaged: entry('cuMemAllocManaged', 'cuMemAllocManaged', 6000, ['out', 'size_t', 'uint']),
  cuIpcGetMemHandle: entry('cuIpcGetMemHandle', 'cuIpcGetMemHandle', 4010, ['buffer', 'handle']),
  cuIpcOpenMemHandle_v2: entry('cuIpcOpenMemHandle_v2', 'cuIpcOpenMemHandle', 11000, [
    'out',
    'ipcHandle',
    'uint',
  ]),
  cuIpcCloseMemHandle: entry('cuIpcCloseMemHandle', 'cuIpcCloseMemHandle', 4010, ['handle']),
  cuIpcGetEventHandle: entry('cuIpcGetEventHandle', 'cuIpcGetEventHandle', 4010, ['buffer', 'handle']),
  cuIpcOpenEventHandle: entry('cuIpcOpenEventHandle', 'cuIpcOpenEventHandle', 4010, ['out', 'ipcHandle']),

  // --- Copies and fills ------------------------------------------------------------------------------------
  cuMemcpyAsync: entry('cuMemcpyAsync', 'cuMemcpyAsync', 4000, ['handle', 'handle', 'size_t', 'handle']),
  cuMemcpyHtoDAsync_v2: entry('cuMemcpyHtoDAsync_v2', 'cuMemcpyHtoDAsync', 3020, [
    'handle',
    'hostAddress',
    'size_t',
    'handle',
  ]),
  cuMemcpyDtoHAsync_v2: entry('cuMemcpyDtoHAsync_v2', 'cuMemcpyDtoHAsync', 3020, [
    'hostAddress',
    'handle',
    'size_t',
    'handle',
  ]),
  cuMemcpyHtoD_v2: entry('cuMemcpyHtoD_v2', 'cuMemcpyHtoD', 3020, ['handle', 'hostAddress', 'size_t']),
  cuMemcpyDtoH_v2: entry('cuMemcpyDtoH_v2', 'cuMemcpyDtoH', 3020, ['hostAddress', 'handle', 'size_t']),
  cuMemcpy2DAsync_v2: entry('cuMemcpy2DAsync_v2', 'cuMemcpy2DAsync', 3020, ['memcpy2D*', 'handle']),
  cuMemcpy3DAsync_v2: entry('cuMemcpy3DAsync_v2', 'cuMemcpy3DAsync', 3020, ['memcpy3D*', 'handle']),
  // CUDA 13 dropped the `size_t *failIdx` parameter: `_v2` has 8 parameters, the 12.8 symbol 9.
  cuMemcpyBatchAsync_v2: optionalEntry('cuMemcpyBatchAsync_v2', 'cuMemcpyBatchAsync', 13000, [
    'buffer',
    'buffer',
    'buffer',
    'size_t',
    'memcpyAttributes*',
    'buffer',
    'size_t',
    'handle',
  ]),
  cuMemcpyBatchAsync: optionalEntry('cuMemcpyBatchAsync', 'cuMemcpyBatchAsync', 12080, [
    'buffer',
    'buffer',
    'buffer',
    'size_t',
    'memcpyAttributes*',
    'buffer',
    'size_t',
    'out',
    'handle',
  ]),
  cuMemsetD8Async: entry('cuMemsetD8Async', 'cuMemsetD8Async', 3020, ['handle', 'uint8', 'size_t', 'handle']),
  cuMemsetD16Async: entry('cuMemsetD16Async', 'cuMemsetD16Async', 3020, [
    'handle',
    'uint16',
    'size_t',
    'handle',
  ]),
  cuMemsetD32Async: entry('cuMemsetD32Async', 'cuMemsetD32Async', 3020, [
    'handle',
    'uint',
    'size_t',
    'handle',
  ]),
  cuMemcpyPeerAsync: entry('cuMemcpyPeerAsync', 'cuMemcpyPeerAsync', 4000, [
    'handle',
    'handle',
    'handle',
    'handle',
    'size_t',
    'handle',
  ]),

  // --- Managed memory ----------------------------------------------------------------------------------------
  cuMemAdvise_v2: optionalEntry('cuMemAdvise_v2', 'cuMemAdvise', 12020, [
    'handle',
    'size_t',
    'int',
    'location',
  ]),
  // The CUDA 8.0 forms take a CUdevice (or CU_DEVICE_CPU = -1); CUDA 13 headers no longer declare them.
  cuMemAdvise: optionalEntry('cuMemAdvise', 'cuMemAdvise', 8000, ['handle', 'size_t', 'int', 'int']),
  cuMemPrefetchAsync_v2: optionalEntry('cuMemPrefetchAsync_v2', 'cuMemPrefetchAsync', 12020, [
    'handle',
    'size_t',
    'location',
    'uint',
    'handle',
  ]),
  cuMemPrefetchAsync: optionalEntry('cuMemPrefetchAsync', 'cuMemPrefetchAsync', 8000, [
    'handle',
    'size_t',
    'int',
    'handle',
  ]),
  cuMemPrefetchBatchAsync: optionalEntry('cuMemPrefetchBatchAsync', 'cuMemPrefetchBatchAsync', 13000, [
    'buffer',
    'buffer',
    'size_t',
    'buffer',
    'buffer',
    'size_t',
    'ulonglong',
    'handle',
  ]),
  cuMemDiscardBatchAsync: optionalEntry('cuMemDiscardBatchAsync', 'cuMemDiscardBatchAsync', 13000, [
    'buffer',
    'buffer',
    'size_t',
    'ulonglong',
    'handle',
  ]),
  cuMemDiscardAndPrefetchBatchAsync: optionalEntry(
    'cuMemDiscardAndPrefetchBatchAsync',
    'cuMemDiscardAndPrefetchBatchAsync',
    13000,
    ['buffer', 'buffer', 'size_t', 'buffer', 'buffer', 'size_t', 'ulonglong', 'handle'],
  ),
  cuMemRangeGetAttribute: entry('cuMemRangeGetAttribute', 'cuMemRangeGetAttribute', 8000, [
    'out',
    'size_t',
    'int',
    'handle',
    'size_t',
  ]),

  // --- Pointers --------------------------------------------------------------------------------------------
  cuPointerGetAttribute: entry('cuPointerGetAttribute', 'cuPointerGetAttribute', 4000, [
    'out',
    'int',
    'handle',
  ]),

  // --- Virtual memory management (bindings-virtual-memory.ts) -------------------------------------------
  ...virtualMemoryEntryPoints,
} as const;

/** The table's type. */
export type EntryPointTable = typeof entryPoints;
/** A symbol of the table. */
export type EntryPointSymbol = keyof EntryPointTable;
/** A public entry point name, as `CudaError.call` reports it. */
export type EntryPointName = EntryPointTable[EntryPointSymbol]['name'];

type JsArguments<P extends readonly ParameterKind[]> = { -readonly [I in keyof P]: ParameterKinds[P[I]] };

/**
 * A bound function: returns the CUresult. (koffi's `.async` is deliberately not used: settling it
 * into a terminated Worker aborts the process; see completion-poll.ts.)
 */
export type BoundFunction<P extends readonly ParameterKind[]> = (...args: JsArguments<P>) => number;

/** Every bound entry point; optional ones are undefined when the library lacks the symbol. */
export type Bindings = {
  readonly [S in EntryPointSymbol]: EntryPointTable[S] extends { optional: true }
    ? BoundFunction<EntryPointTable[S]['parameters']> | undefined
    : BoundFunction<EntryPointTable[S]['parameters']>;
};
