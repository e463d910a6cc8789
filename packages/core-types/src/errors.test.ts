import { describe, expect, it } from 'vitest';
import {
  CudaError,
  CudaStateError,
  DriverUnavailableError,
  isCumemError,
  NotSupportedError,
} from './errors.js';

describe('CudaError', () => {
  const error = new CudaError({
    code: 2,
    codeName: 'CUDA_ERROR_OUT_OF_MEMORY',
    call: 'cuMemAllocAsync',
    description: 'out of memory',
  });

  it('carries the code, its name, the entry point and the description', () => {
    expect(error.code).toBe(2);
    expect(error.codeName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    expect(error.call).toBe('cuMemAllocAsync');
    expect(error.description).toBe('out of memory');
    expect(error.name).toBe('CudaError');
    expect(error.message).toBe('cuMemAllocAsync failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory');
    expect(error).toBeInstanceOf(Error);
  });

  it('leaves the description out of the message when there is none', () => {
    const bare = new CudaError({ code: 1, codeName: 'CUDA_ERROR_INVALID_VALUE', call: 'cuMemFree' });
    expect(bare.message).toBe('cuMemFree failed: CUDA_ERROR_INVALID_VALUE (1)');
  });
});

describe('error identity', () => {
  const errors = [
    new CudaError({ code: 1, codeName: 'CUDA_ERROR_INVALID_VALUE', call: 'cuMemFree' }),
    new DriverUnavailableError('library-missing', 'libcuda.so.1 not found'),
    new CudaStateError('Buffer is closed'),
    new NotSupportedError('needs CUDA 13.0'),
  ];
  const checks = [
    CudaError.isInstance,
    DriverUnavailableError.isInstance,
    CudaStateError.isInstance,
    NotSupportedError.isInstance,
  ];

  it('isInstance recognises exactly its own class', () => {
    errors.forEach((error, i) => {
      checks.forEach((check, j) => {
        expect(check(error)).toBe(i === j);
      });
      expect(isCumemError(error)).toBe(true);
    });
    expect(isCumemError(new Error('x'))).toBe(false);
    expect(CudaError.isInstance(null)).toBe(false);
  });

  it('isInstance works for an error made by another copy of the package', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('cumem.error.CudaError')]: true });
    expect(CudaError.isInstance(foreign)).toBe(true);
  });

  it('keeps the reason and the cause of DriverUnavailableError', () => {
    const cause = new Error('dlopen failed');
    const error = new DriverUnavailableError('no-device', 'no CUDA device', { cause });
    expect(error.reason).toBe('no-device');
    expect(error.cause).toBe(cause);
  });

  it('names the closed object', () => {
    expect(CudaStateError.closed('Buffer').message).toMatch(/^Buffer is closed/);
  });

  // Found by the GPU run's fuzz test: String() of such an object throws the engine's TypeError.
  it('builds from values String() cannot print', () => {
    const unprintable = { toString: undefined } as never;
    expect(new NotSupportedError(unprintable).message).toBe('[unprintable object]');
    expect(new CudaStateError(unprintable).message).toBe('[unprintable object]');
    expect(new DriverUnavailableError('no-device', unprintable).message).toBe('[unprintable object]');
    expect(CudaStateError.closed(unprintable).message).toMatch(/^\[unprintable object\] is closed/);
    expect(new CudaError({ code: 1, codeName: unprintable, call: unprintable }).message).toBe(
      '[unprintable object] failed: [unprintable object] (1)',
    );
  });
});
