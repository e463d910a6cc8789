// The compute members of the Driver contract over the addon (native/binding-compute.cc). The
// launch geometry crosses into C++ as one Uint32Array, and the two-number results come back as pairs.
import type { DriverCompute } from '@cumem/core-types';
import type { NativeBinding } from './native-binding.js';

/** The DriverCompute members over binding `b`. */
export function computeMembers(b: NativeBinding): DriverCompute {
  // One launch's geometry, rewritten per launch: one typed array crosses rather than 10 numbers.
  const geometry = new Uint32Array(10);
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
      geometry[0] = grid[0];
      geometry[1] = grid[1];
      geometry[2] = grid[2];
      geometry[3] = block[0];
      geometry[4] = block[1];
      geometry[5] = block[2];
      geometry[6] = config.sharedMemBytes;
      geometry[7] = cluster === null ? 0 : cluster[0];
      geometry[8] = cluster === null ? 0 : cluster[1];
      geometry[9] = cluster === null ? 0 : cluster[2];
      b.launchKernelEx(fn, geometry, argumentBytes, argumentOffsets, stream);
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
