import { CudaError } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError } from './support.js';

/**
 * Device ordinals no device can have: a number that is not a 32-bit integer is refused with a
 * RangeError before any driver call (the FFI adapter once handed 2**53 to koffi, which wrapped
 * it to device 0); an int32 of no device is the driver's CUDA_ERROR_INVALID_DEVICE.
 */
export function deviceOrdinalCases(suite: SuiteContext): void {
  describe('device ordinals', () => {
    it('primaryContextRetain refuses ordinals past 32 bits and fractions with a RangeError, never another device', () => {
      for (const ordinal of [2 ** 53, 2 ** 40, -(2 ** 53), 1.5, Number.NaN]) {
        expect(() => suite.driver.primaryContextRetain(ordinal)).toThrow(RangeError);
      }
    });

    it('primaryContextRetain of -1, the device count or 2**31 fails, never retaining some device', () => {
      const count = suite.driver.deviceGetCount();
      expectCudaError(() => suite.driver.primaryContextRetain(-1), 'cuDevicePrimaryCtxRetain');
      expectCudaError(() => suite.driver.primaryContextRetain(count), 'cuDevicePrimaryCtxRetain');
      // 2**31: past int32; an adapter may refuse it as such or hand the driver its 32-bit pattern.
      let thrown: unknown;
      try {
        suite.driver.primaryContextRetain(2 ** 31);
      } catch (error) {
        thrown = error;
      }
      expect(thrown instanceof RangeError || CudaError.isInstance(thrown)).toBe(true);
    });
  });
}
