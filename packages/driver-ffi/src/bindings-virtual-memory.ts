// Entry points of the virtual memory members (ffi-virtual-memory.ts), in the table's row format;
// kept apart from bindings.ts to keep that file small. bindings.ts spreads them into its table.
// Signatures from cudaTypedefs.h 13.0 (PFN_<name>_v10020: every supported driver has them).

import { entry, type ParameterKind } from './entry-point-spec.js';

const row = <const P extends readonly ParameterKind[], const N extends string>(name: N, parameters: P) =>
  entry(name, name, 10020, parameters);

/** The VMM entry points, all required. */
export const virtualMemoryEntryPoints = {
  // (CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)
  cuMemAddressReserve: row('cuMemAddressReserve', ['out', 'size_t', 'size_t', 'handle', 'ulonglong']),
  cuMemAddressFree: row('cuMemAddressFree', ['handle', 'size_t']),
  // (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags):
  // the prop as its 32 bytes, written by ffi-virtual-memory.ts.
  cuMemCreate: row('cuMemCreate', ['out', 'size_t', 'buffer', 'ulonglong']),
  cuMemRelease: row('cuMemRelease', ['handle']),
  // (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)
  cuMemMap: row('cuMemMap', ['handle', 'size_t', 'size_t', 'handle', 'ulonglong']),
  cuMemUnmap: row('cuMemUnmap', ['handle', 'size_t']),
  cuMemSetAccess: row('cuMemSetAccess', ['handle', 'size_t', 'buffer', 'size_t']),
  // (unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
  cuMemGetAccess: row('cuMemGetAccess', ['out', 'location*', 'handle']),
  // (void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType type, unsigned long long flags)
  cuMemExportToShareableHandle: row('cuMemExportToShareableHandle', ['out', 'handle', 'int', 'ulonglong']),
  // (CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType type): a POSIX fd
  // travels as the pointer-sized value of the descriptor.
  cuMemImportFromShareableHandle: row('cuMemImportFromShareableHandle', ['out', 'intptr', 'int']),
  cuMemGetAllocationGranularity: row('cuMemGetAllocationGranularity', ['out', 'allocationProp*', 'int']),
  // (CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle): the output is scratch memory.
  cuMemGetAllocationPropertiesFromHandle: row('cuMemGetAllocationPropertiesFromHandle', ['out', 'handle']),
} as const;
