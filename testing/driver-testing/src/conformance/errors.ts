import { CudaError, DRIVER_CONTRACT_VERSION } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectedCapabilities } from './support.js';

const capabilityFlags = [
  'memoryLocations',
  'hostNumaLocations',
  'batchPrefetchDiscard',
  'batchMemcpy',
  'hostMemoryPools',
  'managedMemoryPools',
  'interprocess',
  'kernelParameterInfo',
] as const;

/** The adapter's identity members and the shape of its errors. */
export function errorCases(suite: SuiteContext): void {
  describe('identity and errors', () => {
    it('name, contractVersion, driverVersion and every capability flag are present', () => {
      expect(typeof suite.driver.name).toBe('string');
      expect(suite.driver.name.length).toBeGreaterThan(0);
      expect(suite.driver.contractVersion).toBe(DRIVER_CONTRACT_VERSION);
      const version = suite.driver.driverVersion;
      expect(Number.isInteger(version)).toBe(true);
      // cumem's floor is CUDA 12.0 (legacy entry points); the encoding is 1000 * major + 10 * minor.
      expect(version).toBeGreaterThanOrEqual(12000);
      expect(version % 10).toBe(0);
      for (const flag of capabilityFlags) expect(typeof suite.driver.capabilities[flag]).toBe('boolean');
    });

    it("every capability flag follows driver-kit's rule for this driver version and mode", () => {
      const expected = expectedCapabilities(suite.driver, suite.mode, suite.isReference);
      for (const flag of capabilityFlags) {
        expect([flag, suite.driver.capabilities[flag]]).toEqual([flag, expected[flag]]);
      }
    });

    it('a CudaError carries code, cuGetErrorName, the entry point and a message naming them', () => {
      const error = expectCudaError(() => suite.driver.memAlloc(0), 'cuMemAlloc', 'CUDA_ERROR_INVALID_VALUE');
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('CudaError');
      // CUDA_ERROR_INVALID_VALUE is 1 in cuda.h.
      expect(error.code).toBe(1);
      expect(error.message).toContain(error.call);
      expect(error.message).toContain('CUDA_ERROR_INVALID_VALUE');
      expect(typeof error.description).toBe('string');
      expect(CudaError.isInstance(error)).toBe(true);
    });

    it('errors are not sticky: the driver works normally after a failed call', () => {
      expectCudaError(() => suite.driver.memAlloc(0), 'cuMemAlloc');
      const pointer = suite.driver.memAlloc(4096);
      suite.driver.memsetD8Async(pointer, 1, 4096, suite.stream);
      suite.driver.streamSynchronize(suite.stream);
      suite.driver.memFree(pointer);
      expect(suite.driver.contextGetDevice()).toBe(suite.device);
    });
  });
}
