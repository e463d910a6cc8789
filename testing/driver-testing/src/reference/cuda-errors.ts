import { CudaError } from '@cumem/core-types';

// CUresult values, names and cuGetErrorString texts from cuda.h (CUDA 13.0), for the codes the
// reference driver returns. Tests match on `codeName`, so these must be the driver's own.
const codes = {
  CUDA_ERROR_INVALID_VALUE: [1, 'invalid argument'],
  CUDA_ERROR_OUT_OF_MEMORY: [2, 'out of memory'],
  CUDA_ERROR_NOT_INITIALIZED: [3, 'initialization error'],
  CUDA_ERROR_INVALID_DEVICE: [101, 'invalid device ordinal'],
  CUDA_ERROR_INVALID_CONTEXT: [201, 'invalid device context'],
  CUDA_ERROR_INVALID_HANDLE: [400, 'invalid resource handle'],
  CUDA_ERROR_NOT_READY: [600, 'device not ready'],
  CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: [705, 'peer access is not enabled'],
  CUDA_ERROR_NOT_SUPPORTED: [801, 'operation not supported'],
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: [
    712,
    'part or all of the requested memory range is already mapped',
  ],
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: [713, 'pointer does not correspond to a registered memory region'],
  CUDA_ERROR_INVALID_PTX: [218, 'a PTX JIT compilation failed'],
  CUDA_ERROR_NOT_FOUND: [500, 'named symbol not found'],
  CUDA_ERROR_ILLEGAL_ADDRESS: [700, 'an illegal memory access was encountered'],
  CUDA_ERROR_INVALID_CLUSTER_SIZE: [912, 'invalid cluster size'],
} as const;

/** A CUresult name the reference driver can return. */
export type CudaErrorName = keyof typeof codes;

/** The CUresult value of `name`, as in cuda.h. */
export function cudaErrorCode(name: CudaErrorName): number {
  return codes[name][0];
}

/**
 * The {@link CudaError} the real driver's `call` entry point would give for `name`.
 * `call` is the entry point's documented name (`'cuMemAlloc'`), without `_v2` suffixes.
 */
export function cudaError(call: string, name: CudaErrorName): CudaError {
  const [code, description] = codes[name];
  return new CudaError({ code, codeName: name, call, description });
}
