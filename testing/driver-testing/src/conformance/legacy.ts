import {
  CU_DEVICE_CPU,
  type Driver,
  MemAdvise,
  MemAllocationType,
  MemAttachFlags,
  MemLocationType,
  MemRangeAttribute,
} from '@cumem/core-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectedCapabilities, expectNotSupported, MiB, poolProperties } from './support.js';

/**
 * The same adapter made with `entryPoints: 'legacy'` (the CUDA 12.0 forms): the capabilities
 * it loses, NotSupportedError for what needs them, and the Device/Host forms that still work.
 */
export function legacyCases(suite: SuiteContext): void {
  describe("legacy entry points (create({ entryPoints: 'legacy' }))", () => {
    let legacy: Driver | undefined;
    const driver = (): Driver => {
      if (!legacy) throw new Error('the legacy driver is made in beforeAll');
      return legacy;
    };
    const size = 2 * MiB;
    const withManaged = (body: (pointer: bigint) => void) => {
      const pointer = driver().memAllocManaged(size, MemAttachFlags.Global);
      try {
        body(pointer);
      } finally {
        driver().contextSynchronize();
        driver().memFree(pointer);
      }
    };

    beforeAll(() => {
      legacy = suite.create({ entryPoints: 'legacy' });
      legacy.contextSetCurrent(legacy.primaryContextRetain(suite.device));
    });

    afterAll(() => {
      if (!legacy) return;
      legacy.primaryContextRelease(suite.device);
      // On a real GPU both adapters share the thread's current context; put the suite's back.
      suite.driver.contextSetCurrent(suite.context);
    });

    it('capabilities drop memoryLocations, hostNumaLocations, batchPrefetchDiscard and batchMemcpy', () => {
      const capabilities = driver().capabilities;
      expect(capabilities.memoryLocations).toBe(false);
      expect(capabilities.hostNumaLocations).toBe(false);
      expect(capabilities.batchPrefetchDiscard).toBe(false);
      expect(capabilities.batchMemcpy).toBe(false);
    });

    it("every capability flag follows driver-kit's rule for this driver version ('legacy')", () => {
      const expected = expectedCapabilities(driver(), 'legacy', suite.isReference);
      for (const flag of Object.keys(expected) as (keyof typeof expected)[]) {
        expect([flag, driver().capabilities[flag]]).toEqual([flag, expected[flag]]);
      }
    });

    it('HostNuma and HostNumaCurrent locations throw NotSupportedError in memAdvise, memPrefetchAsync and memPoolCreate', () => {
      withManaged((pointer) => {
        for (const location of [
          { type: MemLocationType.HostNuma, id: 0 },
          { type: MemLocationType.HostNumaCurrent, id: 0 },
        ]) {
          expectNotSupported(() =>
            driver().memAdvise(pointer, size, MemAdvise.SetPreferredLocation, location),
          );
          expectNotSupported(() => driver().memPrefetchAsync(pointer, size, location, 0n));
          expectNotSupported(() =>
            driver().memPoolCreate(poolProperties(MemAllocationType.Pinned, location)),
          );
        }
      });
    });

    it('Device and Host advice and prefetch still work, as the range attributes show', () => {
      withManaged((pointer) => {
        const device = { type: MemLocationType.Device, id: suite.device };
        const host = { type: MemLocationType.Host, id: 0 };
        const range = (which: number) => driver().memRangeGetAttribute(pointer, size, which);
        driver().memAdvise(pointer, size, MemAdvise.SetPreferredLocation, device);
        expect(range(MemRangeAttribute.PreferredLocation)).toBe(suite.device);
        driver().memAdvise(pointer, size, MemAdvise.SetPreferredLocation, host);
        expect(range(MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_CPU);
        driver().memAdvise(pointer, size, MemAdvise.SetAccessedBy, device);
        expect(driver().memRangeGetAccessedBy(pointer, size)).toEqual([suite.device]);
        driver().memPrefetchAsync(pointer, size, device, 0n);
        driver().contextSynchronize();
        expect(range(MemRangeAttribute.LastPrefetchLocation)).toBe(suite.device);
        driver().memPrefetchAsync(pointer, size, host, 0n);
        driver().contextSynchronize();
        expect(range(MemRangeAttribute.LastPrefetchLocation)).toBe(CU_DEVICE_CPU);
      });
    });

    it('the CUDA 12.0 forms get the device by ordinal, a bad one failing with CUDA_ERROR_INVALID_DEVICE; a Host id is ignored', () => {
      withManaged((pointer) => {
        const range = (which: number) => driver().memRangeGetAttribute(pointer, size, which);
        const bad = { type: MemLocationType.Device, id: driver().deviceGetCount() };
        expectCudaError(
          () => driver().memAdvise(pointer, size, MemAdvise.SetPreferredLocation, bad),
          'cuMemAdvise',
          'CUDA_ERROR_INVALID_DEVICE',
        );
        expectCudaError(
          () => driver().memPrefetchAsync(pointer, size, bad, 0n),
          'cuMemPrefetchAsync',
          'CUDA_ERROR_INVALID_DEVICE',
        );
        const hostNine = { type: MemLocationType.Host, id: 9 };
        driver().memAdvise(pointer, size, MemAdvise.SetPreferredLocation, hostNine);
        expect(range(MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_CPU);
        driver().memPrefetchAsync(pointer, size, hostNine, 0n);
        driver().contextSynchronize();
        expect(range(MemRangeAttribute.LastPrefetchLocation)).toBe(CU_DEVICE_CPU);
      });
    });

    it('the batch entry points throw NotSupportedError', () => {
      withManaged((pointer) => {
        const pointers = BigUint64Array.of(pointer);
        const sizes = BigUint64Array.of(BigInt(size));
        const device = { type: MemLocationType.Device, id: suite.device };
        expectNotSupported(() => driver().memcpyBatchAsync(pointers, pointers, sizes, 1, 0n));
        expectNotSupported(() => driver().memPrefetchBatchAsync(pointers, sizes, 1, [device], [0], 0n));
        expectNotSupported(() => driver().memDiscardBatchAsync(pointers, sizes, 1, 0n));
        expectNotSupported(() =>
          driver().memDiscardAndPrefetchBatchAsync(pointers, sizes, 1, [device], [0], 0n),
        );
      });
    });
  });
}
