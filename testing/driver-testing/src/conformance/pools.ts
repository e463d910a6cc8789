import {
  MemAccessFlags,
  MemAllocationType,
  MemHandleType,
  MemLocationType,
  MemPoolAttribute,
  type MemPoolProperties,
} from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { hostPoolCases } from './pools-host.js';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, poolProperties, randomBytes } from './support.js';

/** Properties of a plain device pool on the suite device. */
export function devicePoolProperties(
  device: number,
  handleTypes: number = MemHandleType.None,
): MemPoolProperties {
  return poolProperties(MemAllocationType.Pinned, { type: MemLocationType.Device, id: device }, handleTypes);
}

/** Stream-ordered pools: creation, attributes, accounting, access, trimming, and host/managed pools. */
export function poolCases(suite: SuiteContext): void {
  describe('memory pools', () => {
    const attribute = (pool: bigint, which: number) => suite.driver.memPoolGetAttribute(pool, which);

    it('the default pool reports reuse flags as 0/1 and byte counts with reserved >= used', () => {
      const pool = suite.driver.deviceGetDefaultMemPool(suite.device);
      for (const flag of [
        MemPoolAttribute.ReuseFollowEventDependencies,
        MemPoolAttribute.ReuseAllowOpportunistic,
        MemPoolAttribute.ReuseAllowInternalDependencies,
      ]) {
        expect([0, 1]).toContain(attribute(pool, flag));
      }
      expect(attribute(pool, MemPoolAttribute.ReleaseThreshold)).toBeGreaterThanOrEqual(0);
      expect(attribute(pool, MemPoolAttribute.ReservedMemCurrent)).toBeGreaterThanOrEqual(
        attribute(pool, MemPoolAttribute.UsedMemCurrent),
      );
      expect(attribute(pool, MemPoolAttribute.ReservedMemHigh)).toBeGreaterThanOrEqual(
        attribute(pool, MemPoolAttribute.ReservedMemCurrent),
      );
      expect(attribute(pool, MemPoolAttribute.UsedMemHigh)).toBeGreaterThanOrEqual(
        attribute(pool, MemPoolAttribute.UsedMemCurrent),
      );
    });

    it('memPoolCreate gives a new pool distinct from the default; memPoolDestroy destroys it', () => {
      const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
      try {
        expect(pool).not.toBe(0n);
        expect(pool).not.toBe(suite.driver.deviceGetDefaultMemPool(suite.device));
        expect(attribute(pool, MemPoolAttribute.UsedMemCurrent)).toBe(0);
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    it('memPoolSetAttribute round-trips ReleaseThreshold and the reuse flags', () => {
      const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
      try {
        suite.driver.memPoolSetAttribute(pool, MemPoolAttribute.ReleaseThreshold, 48 * MiB);
        expect(attribute(pool, MemPoolAttribute.ReleaseThreshold)).toBe(48 * MiB);
        for (const flag of [
          MemPoolAttribute.ReuseAllowOpportunistic,
          MemPoolAttribute.ReuseFollowEventDependencies,
        ]) {
          suite.driver.memPoolSetAttribute(pool, flag, 0);
          expect(attribute(pool, flag)).toBe(0);
          suite.driver.memPoolSetAttribute(pool, flag, 1);
          expect(attribute(pool, flag)).toBe(1);
        }
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    it('used and reserved memory rise by at least the size allocated, and used falls back when freed', () => {
      const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
      const size = 3 * MiB + 123;
      try {
        const usedBefore = attribute(pool, MemPoolAttribute.UsedMemCurrent);
        const pointer = suite.driver.memAllocFromPoolAsync(size, pool, suite.stream);
        expect(pointer).not.toBe(0n);
        expect(attribute(pool, MemPoolAttribute.UsedMemCurrent)).toBeGreaterThanOrEqual(usedBefore + size);
        expect(attribute(pool, MemPoolAttribute.UsedMemHigh)).toBeGreaterThanOrEqual(usedBefore + size);
        expect(attribute(pool, MemPoolAttribute.ReservedMemCurrent)).toBeGreaterThanOrEqual(size);
        expect(attribute(pool, MemPoolAttribute.ReservedMemHigh)).toBeGreaterThanOrEqual(size);
        suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(attribute(pool, MemPoolAttribute.UsedMemCurrent)).toBe(usedBefore);
        // The high-water mark remembers the allocation until reset; 0 is the one value it accepts.
        expect(attribute(pool, MemPoolAttribute.UsedMemHigh)).toBeGreaterThanOrEqual(size);
        suite.driver.memPoolSetAttribute(pool, MemPoolAttribute.UsedMemHigh, 0);
        expect(attribute(pool, MemPoolAttribute.UsedMemHigh)).toBe(
          attribute(pool, MemPoolAttribute.UsedMemCurrent),
        );
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    it('memory below the release threshold stays reserved across a synchronize, and memPoolTrimTo(0) releases it', () => {
      const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
      const size = 8 * MiB;
      try {
        suite.driver.memPoolSetAttribute(pool, MemPoolAttribute.ReleaseThreshold, 64 * MiB);
        const pointer = suite.driver.memAllocFromPoolAsync(size, pool, suite.stream);
        suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        const reserved = attribute(pool, MemPoolAttribute.ReservedMemCurrent);
        expect(reserved).toBeGreaterThanOrEqual(size);
        suite.driver.memPoolTrimTo(pool, 0);
        expect(attribute(pool, MemPoolAttribute.ReservedMemCurrent)).toBeLessThan(reserved);
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    it('pool memory holds data: a copy in and out of a pool allocation round-trips', () => {
      const pool = suite.driver.deviceGetMemPool(suite.device);
      const size = MiB + 7;
      const data = randomBytes(size);
      const pointer = suite.driver.memAllocFromPoolAsync(size, pool, suite.stream);
      try {
        suite.driver.memcpyHtoDAsync(pointer, data, suite.stream);
        const result = new Uint8Array(size);
        suite.driver.memcpyDtoHAsync(result, pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(result, data);
      } finally {
        suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
      }
    });

    it('the owning device has read-write access to a device pool, and setting it again is accepted', () => {
      const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
      const location = { type: MemLocationType.Device, id: suite.device };
      try {
        expect(suite.driver.memPoolGetAccess(pool, location)).toBe(MemAccessFlags.ReadWrite);
        suite.driver.memPoolSetAccess(pool, location, MemAccessFlags.ReadWrite);
        expect(suite.driver.memPoolGetAccess(pool, location)).toBe(MemAccessFlags.ReadWrite);
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    suite.itUnless(
      () => (suite.driver.deviceGetCount() < 2 ? 'not applicable: needs a second device' : undefined),
      'memPoolSetAccess grants and revokes another device access, as memPoolGetAccess reports',
      () => {
        const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
        const peer = { type: MemLocationType.Device, id: suite.device === 0 ? 1 : 0 };
        try {
          suite.driver.memPoolSetAccess(pool, peer, MemAccessFlags.ReadWrite);
          expect(suite.driver.memPoolGetAccess(pool, peer)).toBe(MemAccessFlags.ReadWrite);
          suite.driver.memPoolSetAccess(pool, peer, MemAccessFlags.None);
          expect(suite.driver.memPoolGetAccess(pool, peer)).toBe(MemAccessFlags.None);
        } finally {
          suite.driver.memPoolDestroy(pool);
        }
      },
    );

    hostPoolCases(suite);

    it('memPoolCreate with an invalid allocation type fails', () => {
      expectCudaError(
        () => suite.driver.memPoolCreate({ ...devicePoolProperties(suite.device), allocationType: 0 }),
        'cuMemPoolCreate',
      );
    });

    it('memPoolGetAttribute of an unknown attribute and memPoolSetAttribute of a read-only one fail', () => {
      const pool = suite.driver.memPoolCreate(devicePoolProperties(suite.device));
      try {
        expectCudaError(() => suite.driver.memPoolGetAttribute(pool, 999), 'cuMemPoolGetAttribute');
        expectCudaError(
          () => suite.driver.memPoolSetAttribute(pool, MemPoolAttribute.UsedMemCurrent, 0),
          'cuMemPoolSetAttribute',
        );
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    it('memAllocFromPoolAsync past a pool maxSize fails', () => {
      const pool = suite.driver.memPoolCreate({ ...devicePoolProperties(suite.device), maxSize: 32 * MiB });
      try {
        expectCudaError(
          () => suite.driver.memAllocFromPoolAsync(64 * MiB, pool, suite.stream),
          'cuMemAllocFromPoolAsync',
        );
      } finally {
        suite.driver.memPoolDestroy(pool);
      }
    });

    it('memAllocFromPoolAsync / memFreeAsync refuse bad arguments before any call, and take number handles', () => {
      const pool = suite.driver.deviceGetDefaultMemPool(suite.device);
      const stream = suite.stream;
      // core-types checkSize / checkAddress: the wrong kind is a TypeError, out of range a RangeError.
      expect(() => suite.driver.memAllocFromPoolAsync(4096, 'pool' as never, stream)).toThrow(TypeError);
      expect(() => suite.driver.memAllocFromPoolAsync('64' as never, pool, stream)).toThrow(TypeError);
      expect(() => suite.driver.memAllocFromPoolAsync(-1, pool, stream)).toThrow(RangeError);
      expect(() => suite.driver.memAllocFromPoolAsync(1.5, pool, stream)).toThrow(RangeError);
      expect(() => suite.driver.memAllocFromPoolAsync(64, -1n, stream)).toThrow(RangeError);
      expect(() => suite.driver.memAllocFromPoolAsync(64, pool, 2n ** 64n)).toThrow(RangeError);
      expect(() => suite.driver.memFreeAsync(-1n, stream)).toThrow(RangeError);
      expect(() => suite.driver.memFreeAsync('0x1000' as never, stream)).toThrow(TypeError);
      const pointer = suite.driver.memAllocFromPoolAsync(
        4096,
        Number(pool) as never,
        Number(stream) as never,
      );
      try {
        expect(typeof pointer).toBe('bigint');
      } finally {
        suite.driver.memFreeAsync(Number(pointer) as never, Number(stream) as never);
        suite.driver.streamSynchronize(stream);
      }
    });
  });
}
