// The compute members of the Driver contract (modules, kernels, launches) are not bound in the
// addon yet: each refuses with a NotSupportedError naming the FFI adapter, which has them.
// (The native binding needs CUlaunchConfig / CUlaunchAttribute in cuda-types.h under the ABI
// check, which is the follow-up of issue 23.)
import { type DriverCompute, NotSupportedError } from '@cumem/core-types';

function refuse(member: string): never {
  throw new NotSupportedError(
    `${member}: the N-API adapter does not bind the compute entry points yet; use the FFI adapter (useDriver('ffi')) to launch kernels`,
  );
}

/** Every DriverCompute member, refusing. */
export const computeNotYetBound: DriverCompute = {
  libraryLoadData: () => refuse('libraryLoadData'),
  libraryUnload: () => refuse('libraryUnload'),
  libraryGetKernel: () => refuse('libraryGetKernel'),
  kernelGetFunction: () => refuse('kernelGetFunction'),
  funcGetAttribute: () => refuse('funcGetAttribute'),
  funcSetAttribute: () => refuse('funcSetAttribute'),
  funcGetParamInfo: () => refuse('funcGetParamInfo'),
  launchKernelEx: () => refuse('launchKernelEx'),
  occupancyMaxActiveBlocksPerMultiprocessor: () => refuse('occupancyMaxActiveBlocksPerMultiprocessor'),
  occupancyMaxPotentialBlockSize: () => refuse('occupancyMaxPotentialBlockSize'),
};
