import { MemAccessFlags, MemAllocationType, MemLocationType, PointerAttribute } from '@cumem/core-types';
import { expect } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectNotSupported, expectSameBytes, randomBytes } from './support.js';

/**
 * `memGetMemPool` / `memGetDefaultMemPool` (CUDA 13.0): the pools a location uses now and by
 * default, named without creating one. The host's pinned pool is what `new
 * PinnedMemoryResource()` uses; it belongs to the driver, so the cases never destroy it.
 */
export function poolQueryCases(suite: SuiteContext): void {
  const host = { type: MemLocationType.Host, id: 0 };

  suite.itWith(
    'memoryPoolQueries',
    "the host's current and default pinned pools: one handle every time, usable by the device",
    () => {
      const driver = suite.driver;
      const current = driver.memGetMemPool(host, MemAllocationType.Pinned);
      const fallback = driver.memGetDefaultMemPool(host, MemAllocationType.Pinned);
      expect(typeof current).toBe('bigint');
      expect(current).not.toBe(0n);
      expect(driver.memGetMemPool(host, MemAllocationType.Pinned)).toBe(current);
      expect(driver.memGetDefaultMemPool(host, MemAllocationType.Pinned)).toBe(fallback);
      // cumem never calls cuMemSetMemPool: the current pool is the default one.
      expect(current).toBe(fallback);
      const device = { type: MemLocationType.Device, id: suite.device };
      expect(driver.memGetMemPool(device, MemAllocationType.Pinned)).toBe(
        driver.deviceGetMemPool(suite.device),
      );
      driver.memPoolSetAccess(current, device, MemAccessFlags.ReadWrite);
      expect(driver.memPoolGetAccess(current, device)).toBe(MemAccessFlags.ReadWrite);
      const size = 256 * 1024;
      const data = randomBytes(size);
      const onDevice = driver.memAlloc(size);
      const pointer = driver.memAllocFromPoolAsync(size, current, suite.stream);
      try {
        expect(driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged)).toBe(0);
        driver.memcpyHtoD(onDevice, data);
        driver.contextSynchronize();
        driver.memcpyAsync(pointer, onDevice, size, suite.stream);
        driver.streamSynchronize(suite.stream);
        expectSameBytes(driver.hostView(pointer, size), data);
      } finally {
        driver.memFreeAsync(pointer, suite.stream);
        driver.streamSynchronize(suite.stream);
        driver.memFree(onDevice);
      }
    },
  );

  suite.itWith('memoryPoolQueries', 'an allocation type other than pinned or managed is a CudaError', () => {
    expect(() => suite.driver.memGetMemPool(host, 99)).toThrow(/cuMemGetMemPool/);
    expect(() => suite.driver.memGetDefaultMemPool(host, 99)).toThrow(/cuMemGetDefaultMemPool/);
  });

  suite.itUnless(
    () =>
      suite.driver.capabilities.memoryPoolQueries
        ? 'not applicable: the driver has memoryPoolQueries'
        : undefined,
    'without memoryPoolQueries, both queries throw NotSupportedError',
    () => {
      expectNotSupported(() => suite.driver.memGetMemPool(host, MemAllocationType.Pinned));
      expectNotSupported(() => suite.driver.memGetDefaultMemPool(host, MemAllocationType.Pinned));
    },
  );
}
