// The compute members of the Driver contract over the addon (native/binding-compute.cc). The
// launch geometry crosses into C++ as numbers, and the two-number results come back as pairs.
import type { DriverCompute } from '@cumem/core-types';
import type { NativeBinding } from './native-binding.js';

/** The DriverCompute members over binding `b`. */
export function computeMembers(b: NativeBinding): DriverCompute {
  return {
    libraryLoadData: b.libraryLoadData,
    libraryUnload: b.libraryUnload,
    libraryGetKernel: b.libraryGetKernel,
    kernelGetFunction: b.kernelGetFunction,
    funcGetAttribute: b.funcGetAttribute,
    funcSetAttribute: b.funcSetAttribute,
    funcGetParamInfo: (fn, index) => {
      const pair = b.funcGetParamInfo(fn, index);
      return pair === null ? null : { offset: pair[0], size: pair[1] };
    },
    launchKernelEx: (fn, config, argumentBytes, argumentOffsets, stream) => {
      const { grid, block, cluster } = config;
      b.launchKernelEx(
        fn,
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        config.sharedMemBytes,
        cluster === null ? 0 : cluster[0],
        cluster === null ? 0 : cluster[1],
        cluster === null ? 0 : cluster[2],
        argumentBytes,
        argumentOffsets,
        stream,
      );
    },
    occupancyMaxActiveBlocksPerMultiprocessor: b.occupancyMaxActiveBlocksPerMultiprocessor,
    occupancyMaxPotentialBlockSize: (fn, dynamicSharedMemBytes, blockSizeLimit) => {
      const [minGridSize, blockSize] = b.occupancyMaxPotentialBlockSize(
        fn,
        dynamicSharedMemBytes,
        blockSizeLimit,
      );
      return { minGridSize, blockSize };
    },
  };
}
