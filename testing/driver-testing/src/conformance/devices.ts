import { DeviceAttribute } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes } from './support.js';

/** Device queries: count, name, UUID, memory, attributes and memory pools. */
export function deviceCases(suite: SuiteContext): void {
  describe('devices', () => {
    it('deviceGetCount is a positive integer that includes the suite device', () => {
      const count = suite.driver.deviceGetCount();
      expect(Number.isInteger(count)).toBe(true);
      expect(count).toBeGreaterThan(suite.device);
    });

    it('deviceGetName is a non-empty string for every device', () => {
      for (let ordinal = 0; ordinal < suite.driver.deviceGetCount(); ordinal++) {
        const name = suite.driver.deviceGetName(ordinal);
        expect(typeof name).toBe('string');
        expect(name.trim().length).toBeGreaterThan(0);
        expect(name).not.toContain('\0');
      }
    });

    it('deviceGetUuid gives 16 bytes, stable per device and distinct between devices', () => {
      const seen = new Set<string>();
      for (let ordinal = 0; ordinal < suite.driver.deviceGetCount(); ordinal++) {
        const uuid = suite.driver.deviceGetUuid(ordinal);
        expect(uuid).toBeInstanceOf(Uint8Array);
        expect(uuid.length).toBe(16);
        expect(uuid.some((byte) => byte !== 0)).toBe(true);
        expectSameBytes(suite.driver.deviceGetUuid(ordinal), uuid);
        seen.add(Buffer.from(uuid).toString('hex'));
      }
      expect(seen.size).toBe(suite.driver.deviceGetCount());
    });

    it('deviceTotalMem is a positive byte count equal to memGetInfo().total', () => {
      const total = suite.driver.deviceTotalMem(suite.device);
      expect(Number.isSafeInteger(total)).toBe(true);
      expect(total).toBeGreaterThan(0);
      expect(suite.driver.memGetInfo().total).toBe(total);
    });

    it('deviceGetAttribute reports the features cumem relies on', () => {
      const attribute = (which: number) => suite.driver.deviceGetAttribute(which, suite.device);
      expect(attribute(DeviceAttribute.UnifiedAddressing)).toBe(1);
      expect(attribute(DeviceAttribute.ManagedMemory)).toBe(1);
      expect(attribute(DeviceAttribute.ConcurrentManagedAccess)).toBe(1);
      expect(attribute(DeviceAttribute.MemoryPoolsSupported)).toBe(1);
      expect(attribute(DeviceAttribute.CanMapHostMemory)).toBe(1);
      expect(attribute(DeviceAttribute.ComputeCapabilityMajor)).toBeGreaterThanOrEqual(6);
      expect(attribute(DeviceAttribute.ComputeCapabilityMinor)).toBeGreaterThanOrEqual(0);
      expect(attribute(DeviceAttribute.MultiprocessorCount)).toBeGreaterThan(0);
      // cuda.h: -1 when the system has no NUMA support, else a node id.
      expect(attribute(DeviceAttribute.HostNumaId)).toBeGreaterThanOrEqual(-1);
      for (const flag of [
        DeviceAttribute.HostMemoryPoolsSupported,
        DeviceAttribute.HostNumaMemoryPoolsSupported,
      ]) {
        expect([0, 1]).toContain(attribute(flag));
      }
    });

    it('deviceGetDefaultMemPool is a non-null handle, and deviceGetMemPool starts as it', () => {
      const pool = suite.driver.deviceGetDefaultMemPool(suite.device);
      expect(typeof pool).toBe('bigint');
      expect(pool).not.toBe(0n);
      expect(suite.driver.deviceGetDefaultMemPool(suite.device)).toBe(pool);
      expect(suite.driver.deviceGetMemPool(suite.device)).toBe(pool);
    });

    it('device queries with an ordinal past the last device fail with CUDA_ERROR_INVALID_DEVICE', () => {
      // cuda.h lists CUDA_ERROR_INVALID_DEVICE for each of these entry points.
      const bad = suite.driver.deviceGetCount();
      expectCudaError(() => suite.driver.deviceGetName(bad), 'cuDeviceGetName', 'CUDA_ERROR_INVALID_DEVICE');
      expectCudaError(
        () => suite.driver.deviceTotalMem(bad),
        'cuDeviceTotalMem',
        'CUDA_ERROR_INVALID_DEVICE',
      );
      expectCudaError(() => suite.driver.deviceGetUuid(bad), 'cuDeviceGetUuid', 'CUDA_ERROR_INVALID_DEVICE');
      expectCudaError(
        () => suite.driver.deviceGetAttribute(DeviceAttribute.MultiprocessorCount, bad),
        'cuDeviceGetAttribute',
        'CUDA_ERROR_INVALID_DEVICE',
      );
      expectCudaError(() => suite.driver.deviceGetDefaultMemPool(bad), 'cuDeviceGetDefaultMemPool');
      expectCudaError(() => suite.driver.deviceGetMemPool(bad), 'cuDeviceGetMemPool');
    });

    it('deviceGetAttribute of an attribute past CU_DEVICE_ATTRIBUTE_MAX fails', () => {
      expectCudaError(() => suite.driver.deviceGetAttribute(100_000, suite.device), 'cuDeviceGetAttribute');
    });
  });
}
