import {
  type Driver,
  MemAccessFlags,
  MemAllocationGranularity,
  type MemAllocationProperties,
  MemAllocationType,
  MemHandleType,
  MemLocationType,
  VirtualMemoryDeviceAttribute,
} from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, randomBytes, readBack } from './support.js';

/** Properties of a device chunk on `device`, exportable as `handleTypes`. */
export function chunkProperties(
  device: number,
  handleTypes: number = MemHandleType.None,
): MemAllocationProperties {
  return {
    allocationType: MemAllocationType.Pinned,
    requestedHandleTypes: handleTypes,
    location: { type: MemLocationType.Device, id: device },
    gpuDirectRdmaCapable: false,
    usage: 0,
  };
}

/** Reserves `chunks * granularity` bytes and maps one chunk per granularity step, read-write for `device`. */
function mappedRange(driver: Driver, device: number, granularity: number, chunks: number) {
  const size = chunks * granularity;
  const base = driver.memAddressReserve(size, 0, 0n);
  const handles: bigint[] = [];
  for (let i = 0; i < chunks; i++) {
    const handle = driver.memCreate(granularity, chunkProperties(device));
    handles.push(handle);
    driver.memMap(base + BigInt(i * granularity), granularity, 0, handle);
  }
  const location = { type: MemLocationType.Device, id: device } as const;
  driver.memSetAccess(base, size, [{ location, flags: MemAccessFlags.ReadWrite }]);
  const free = () => {
    driver.memUnmap(base, size);
    for (const handle of handles) driver.memRelease(handle);
    driver.memAddressFree(base, size);
  };
  return { base, size, handles, free };
}

/** Virtual memory management: reserve, create, map, access, unmap, release, free. */
export function virtualMemoryCases(suite: SuiteContext): void {
  describe('virtual memory', () => {
    const granularity = () =>
      suite.driver.memGetAllocationGranularity(
        chunkProperties(suite.device),
        MemAllocationGranularity.Minimum,
      );

    it('the device supports VMM and reports a power-of-two granularity, recommended a multiple of minimum', () => {
      const { driver, device } = suite;
      expect(
        driver.deviceGetAttribute(VirtualMemoryDeviceAttribute.VirtualMemoryManagementSupported, device),
      ).toBe(1);
      const minimum = granularity();
      const recommended = driver.memGetAllocationGranularity(
        chunkProperties(device),
        MemAllocationGranularity.Recommended,
      );
      expect(minimum).toBeGreaterThan(0);
      expect(minimum & (minimum - 1)).toBe(0);
      expect(recommended % minimum).toBe(0);
    });

    it('chunks mapped side by side read and write as one range, across the chunk boundary', () => {
      const { driver, device, stream } = suite;
      const g = granularity();
      const range = mappedRange(driver, device, g, 2);
      try {
        const data = randomBytes(4096);
        const across = range.base + BigInt(g - 2048);
        driver.memcpyHtoD(across, data);
        expectSameBytes(readBack(driver, across, data.length), data);
        driver.memsetD8Async(range.base, 0x5a, 16, stream);
        driver.streamSynchronize(stream);
        expect([...readBack(driver, range.base, 16)].every((byte) => byte === 0x5a)).toBe(true);
        const location = { type: MemLocationType.Device, id: device } as const;
        expect(driver.memGetAccess(range.base, location)).toBe(MemAccessFlags.ReadWrite);
      } finally {
        range.free();
      }
    });

    it('a chunk mapped at a second range shows the same bytes there', () => {
      const { driver, device } = suite;
      const g = granularity();
      const first = mappedRange(driver, device, g, 1);
      const second = driver.memAddressReserve(g, 0, 0n);
      try {
        const data = randomBytes(1024);
        driver.memcpyHtoD(first.base, data);
        driver.contextSynchronize();
        driver.memMap(second, g, 0, first.handles[0] as bigint);
        const location = { type: MemLocationType.Device, id: device } as const;
        driver.memSetAccess(second, g, [{ location, flags: MemAccessFlags.ReadWrite }]);
        expectSameBytes(readBack(driver, second, data.length), data);
        driver.memUnmap(second, g);
      } finally {
        first.free();
        driver.memAddressFree(second, g);
      }
    });

    it('released chunks give their memory back; the range can be freed once unmapped', () => {
      const { driver, device } = suite;
      const g = granularity();
      const before = driver.memGetInfo().free;
      const range = mappedRange(driver, device, g, 4);
      expect(driver.memGetInfo().free).toBeLessThanOrEqual(before - 4 * g + g);
      range.free();
      expect(driver.memGetInfo().free).toBeGreaterThanOrEqual(before - 2 * g);
    });

    it('memGetAllocationPropertiesFromHandle answers what memCreate was given', () => {
      const { driver, device } = suite;
      const handle = driver.memCreate(granularity(), chunkProperties(device));
      try {
        const properties = driver.memGetAllocationPropertiesFromHandle(handle);
        expect(properties.allocationType).toBe(MemAllocationType.Pinned);
        expect(properties.location).toEqual({ type: MemLocationType.Device, id: device });
        expect(properties.requestedHandleTypes).toBe(MemHandleType.None);
      } finally {
        driver.memRelease(handle);
      }
    });

    // Only the size rules: whether cuMemMap refuses a map past its reservation or its chunk is
    // not something the driver promises (driver 580 mapped it), so cumem's
    // VirtualMemoryResource never asks it to, and no adapter is held to an answer.
    it('refuses sizes that are not granularity multiples', () => {
      const { driver, device } = suite;
      const g = granularity();
      expectCudaError(
        () => driver.memCreate(g + 1, chunkProperties(device)),
        'cuMemCreate',
        'CUDA_ERROR_INVALID_VALUE',
      );
      expectCudaError(
        () => driver.memAddressReserve(g + 1, 0, 0n),
        'cuMemAddressReserve',
        'CUDA_ERROR_INVALID_VALUE',
      );
    });
  });
}
