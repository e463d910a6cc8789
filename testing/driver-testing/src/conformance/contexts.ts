import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError } from './support.js';

/** Primary contexts, the current context, and the per-context queries. */
export function contextCases(suite: SuiteContext): void {
  describe('contexts', () => {
    it('primaryContextRetain returns the same non-null handle on every retain', () => {
      const again = suite.driver.primaryContextRetain(suite.device);
      try {
        expect(again).not.toBe(0n);
        expect(again).toBe(suite.context);
      } finally {
        suite.driver.primaryContextRelease(suite.device);
      }
      // The suite's own retain still holds: the context keeps working.
      expect(suite.driver.contextGetDevice()).toBe(suite.device);
    });

    it('contextSetCurrent / contextGetCurrent round-trip, and contextGetDevice names the device', () => {
      expect(suite.driver.contextGetCurrent()).toBe(suite.context);
      suite.driver.contextSetCurrent(suite.context);
      expect(suite.driver.contextGetCurrent()).toBe(suite.context);
      expect(suite.driver.contextGetDevice()).toBe(suite.device);
    });

    it('without a current context, context calls fail with CUDA_ERROR_INVALID_CONTEXT', () => {
      suite.driver.contextSetCurrent(0n);
      try {
        expect(suite.driver.contextGetCurrent()).toBe(0n);
        // cuda.h lists CUDA_ERROR_INVALID_CONTEXT for these; it is what "no current context" returns.
        expectCudaError(
          () => suite.driver.contextGetDevice(),
          'cuCtxGetDevice',
          'CUDA_ERROR_INVALID_CONTEXT',
        );
        expectCudaError(() => suite.driver.memAlloc(4096), 'cuMemAlloc', 'CUDA_ERROR_INVALID_CONTEXT');
      } finally {
        suite.driver.contextSetCurrent(suite.context);
      }
      expect(suite.driver.contextGetDevice()).toBe(suite.device);
    });

    it('contextSynchronize returns once the context is idle', () => {
      const pointer = suite.driver.memAlloc(4096);
      try {
        suite.driver.memsetD8Async(pointer, 0x5a, 4096, suite.stream);
        suite.driver.contextSynchronize();
        expect(suite.driver.streamQuery(suite.stream)).toBe(true);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memGetInfo gives 0 < free <= total', () => {
      const { free, total } = suite.driver.memGetInfo();
      expect(Number.isSafeInteger(free) && Number.isSafeInteger(total)).toBe(true);
      expect(free).toBeGreaterThan(0);
      expect(free).toBeLessThanOrEqual(total);
    });

    it('contextGetStreamPriorityRange gives integers with greatest <= least', () => {
      const { least, greatest } = suite.driver.contextGetStreamPriorityRange();
      expect(Number.isInteger(least) && Number.isInteger(greatest)).toBe(true);
      expect(greatest).toBeLessThanOrEqual(least);
    });

    it('primaryContextRetain / primaryContextRelease of a device that does not exist fail with CUDA_ERROR_INVALID_DEVICE', () => {
      const bad = suite.driver.deviceGetCount();
      expectCudaError(
        () => suite.driver.primaryContextRetain(bad),
        'cuDevicePrimaryCtxRetain',
        'CUDA_ERROR_INVALID_DEVICE',
      );
      expectCudaError(
        () => suite.driver.primaryContextRelease(bad),
        'cuDevicePrimaryCtxRelease',
        'CUDA_ERROR_INVALID_DEVICE',
      );
    });

    it("contextGetDevice answers the ordinal of every device's primary context (not its CUdevice)", () => {
      const count = suite.driver.deviceGetCount();
      try {
        for (let ordinal = 0; ordinal < count; ordinal++) {
          suite.driver.contextSetCurrent(suite.driver.primaryContextRetain(ordinal));
          try {
            expect(suite.driver.contextGetDevice()).toBe(ordinal);
          } finally {
            suite.driver.primaryContextRelease(ordinal);
          }
        }
      } finally {
        suite.driver.contextSetCurrent(suite.context);
      }
      expect(suite.driver.contextGetDevice()).toBe(suite.device);
    });
  });
}
