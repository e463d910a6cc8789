// Entry points of the compute members (ffi-compute.ts), in the table's row format; kept apart
// from bindings.ts to keep that file small. bindings.ts spreads them into its table. Optional
// here so a libcuda without them (a test double) still loads: each member checks before use.
// Parameters from cuda.h 13.0; `out` slots are the scratch block's.

/** cuLibrary*, cuKernelGetFunction, cuFunc*, cuLaunchKernelEx and cuOccupancy*. */
export const computeEntryPoints = {
  cuLibraryLoadData: {
    symbol: 'cuLibraryLoadData',
    name: 'cuLibraryLoadData',
    since: 12000,
    optional: true,
    parameters: ['out', 'buffer', 'hostAddress', 'hostAddress', 'uint', 'hostAddress', 'hostAddress', 'uint'],
  },
  cuLibraryUnload: {
    symbol: 'cuLibraryUnload',
    name: 'cuLibraryUnload',
    since: 12000,
    optional: true,
    parameters: ['handle'],
  },
  cuLibraryGetKernel: {
    symbol: 'cuLibraryGetKernel',
    name: 'cuLibraryGetKernel',
    since: 12000,
    optional: true,
    parameters: ['out', 'handle', 'buffer'],
  },
  cuKernelGetFunction: {
    symbol: 'cuKernelGetFunction',
    name: 'cuKernelGetFunction',
    since: 12000,
    optional: true,
    parameters: ['out', 'handle'],
  },
  cuFuncGetAttribute: {
    symbol: 'cuFuncGetAttribute',
    name: 'cuFuncGetAttribute',
    since: 2020,
    optional: true,
    parameters: ['out', 'int', 'handle'],
  },
  cuFuncSetAttribute: {
    symbol: 'cuFuncSetAttribute',
    name: 'cuFuncSetAttribute',
    since: 9000,
    optional: true,
    parameters: ['handle', 'int', 'int'],
  },
  cuFuncGetParamInfo: {
    symbol: 'cuFuncGetParamInfo',
    name: 'cuFuncGetParamInfo',
    since: 12040,
    optional: true,
    parameters: ['handle', 'size_t', 'out', 'out'],
  },
  cuLaunchKernelEx: {
    symbol: 'cuLaunchKernelEx',
    name: 'cuLaunchKernelEx',
    since: 11060,
    optional: true,
    parameters: ['hostAddress', 'handle', 'hostAddress', 'hostAddress'],
  },
  cuOccupancyMaxActiveBlocksPerMultiprocessor: {
    symbol: 'cuOccupancyMaxActiveBlocksPerMultiprocessor',
    name: 'cuOccupancyMaxActiveBlocksPerMultiprocessor',
    since: 6050,
    optional: true,
    parameters: ['out', 'handle', 'int', 'size_t'],
  },
  cuOccupancyMaxPotentialBlockSize: {
    symbol: 'cuOccupancyMaxPotentialBlockSize',
    name: 'cuOccupancyMaxPotentialBlockSize',
    since: 6050,
    optional: true,
    parameters: ['out', 'out', 'handle', 'hostAddress', 'size_t', 'int'],
  },
} as const;
