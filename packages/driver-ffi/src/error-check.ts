// Every driver call goes through one check: CUDA_SUCCESS (0) returns, anything else becomes a
// CudaError naming the entry point, the code, cuGetErrorName and cuGetErrorString.

import { CudaError } from '@cumem/core-types';
import type { EntryPointName } from './bindings.js';

/** Throws a {@link CudaError} when `result` is not CUDA_SUCCESS. */
export type ErrorCheck = (result: number, call: EntryPointName) => void;

/** The driver's name and description of a CUresult, or undefined when it does not know the code. */
export type DescribeResult = (code: number) => { name: string | undefined; description: string | undefined };

/** An {@link ErrorCheck} over the driver's own descriptions. */
export function createErrorCheck(describe: DescribeResult): ErrorCheck {
  return (result, call) => {
    if (result !== 0) throw cudaError(describe, result, call);
  };
}

/** The {@link CudaError} for `result` returned by `call`. */
export function cudaError(describe: DescribeResult, result: number, call: string): CudaError {
  const { name, description } = describe(result);
  return new CudaError({
    code: result,
    codeName: name ?? `unrecognized CUresult ${result}`,
    call,
    description,
  });
}
