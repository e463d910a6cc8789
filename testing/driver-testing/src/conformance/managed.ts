import {
  CU_DEVICE_CPU,
  CU_DEVICE_INVALID,
  DeviceAttribute,
  MemAdvise,
  MemAttachFlags,
  MemLocationType,
  MemRangeAttribute,
} from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import {
  expectCudaError,
  expectSameBytes,
  MiB,
  randomBytes,
  readBack,
  withManagedPoolMemory,
} from './support.js';

// 4 MiB, used as two 2 MiB halves: every boundary is a whole number of CPU pages, so the
// driver's rounding of advice ranges to pages never spreads advice into the other half.
const size = 4 * MiB;
const half = 2 * MiB;

/** Managed memory: advice and prefetch, checked through the range attributes the driver reports. */
export function managedCases(suite: SuiteContext): void {
  describe('managed memory', () => {
    const host = { type: MemLocationType.Host, id: 0 };
    const device = () => ({ type: MemLocationType.Device, id: suite.device });
    const range = (pointer: bigint, which: number, length = size) =>
      suite.driver.memRangeGetAttribute(pointer, length, which);
    const withManaged = (body: (pointer: bigint) => void) => {
      const pointer = suite.driver.memAllocManaged(size, MemAttachFlags.Global);
      try {
        body(pointer);
      } finally {
        suite.driver.streamSynchronize(suite.stream);
        suite.driver.memFree(pointer);
      }
    };

    it('a fresh allocation has no advice and no prefetch location', () => {
      withManaged((pointer) => {
        expect(range(pointer, MemRangeAttribute.ReadMostly)).toBe(0);
        expect(range(pointer, MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_INVALID);
        expect(range(pointer, MemRangeAttribute.PreferredLocationType)).toBe(MemLocationType.Invalid);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocation)).toBe(CU_DEVICE_INVALID);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocationType)).toBe(MemLocationType.Invalid);
        expect(suite.driver.memRangeGetAccessedBy(pointer, size)).toEqual([]);
      });
    });

    it('SetReadMostly / UnsetReadMostly show in the ReadMostly attribute, per range', () => {
      withManaged((pointer) => {
        suite.driver.memAdvise(pointer, half, MemAdvise.SetReadMostly, device());
        expect(range(pointer, MemRangeAttribute.ReadMostly, half)).toBe(1);
        expect(range(pointer + BigInt(half), MemRangeAttribute.ReadMostly, half)).toBe(0);
        // All pages must have it for the whole range to report it.
        expect(range(pointer, MemRangeAttribute.ReadMostly)).toBe(0);
        suite.driver.memAdvise(pointer, size, MemAdvise.SetReadMostly, device());
        expect(range(pointer, MemRangeAttribute.ReadMostly)).toBe(1);
        suite.driver.memAdvise(pointer, size, MemAdvise.UnsetReadMostly, device());
        expect(range(pointer, MemRangeAttribute.ReadMostly)).toBe(0);
      });
    });

    it('SetPreferredLocation to the device and to the host show in the PreferredLocation attributes', () => {
      withManaged((pointer) => {
        suite.driver.memAdvise(pointer, size, MemAdvise.SetPreferredLocation, device());
        expect(range(pointer, MemRangeAttribute.PreferredLocation)).toBe(suite.device);
        expect(range(pointer, MemRangeAttribute.PreferredLocationType)).toBe(MemLocationType.Device);
        expect(range(pointer, MemRangeAttribute.PreferredLocationId)).toBe(suite.device);
        suite.driver.memAdvise(pointer + BigInt(half), half, MemAdvise.SetPreferredLocation, host);
        expect(range(pointer + BigInt(half), MemRangeAttribute.PreferredLocation, half)).toBe(CU_DEVICE_CPU);
        expect(range(pointer + BigInt(half), MemRangeAttribute.PreferredLocationType, half)).toBe(
          MemLocationType.Host,
        );
        // Mixed preferences: no single answer for the whole range.
        expect(range(pointer, MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_INVALID);
        expect(range(pointer, MemRangeAttribute.PreferredLocationType)).toBe(MemLocationType.Invalid);
        suite.driver.memAdvise(pointer, size, MemAdvise.UnsetPreferredLocation, host);
        expect(range(pointer, MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_INVALID);
        expect(range(pointer, MemRangeAttribute.PreferredLocationType)).toBe(MemLocationType.Invalid);
      });
    });

    suite.itUnless(
      () => hostNumaReason(suite),
      'SetPreferredLocation to the host NUMA node is accepted, reads back as HostNuma with that id or Invalid, and unset clears it',
      () => {
        const numa = suite.driver.deviceGetAttribute(DeviceAttribute.HostNumaId, suite.device);
        withManaged((pointer) => {
          suite.driver.memAdvise(pointer, size, MemAdvise.SetPreferredLocation, {
            type: MemLocationType.HostNuma,
            id: numa,
          });
          // The CUDA 13.0 driver on a host with one NUMA node (NumaConfig 0, driver 580.159) takes the
          // advice and then reports PreferredLocationType 0 (Invalid); where it reports HostNuma, the
          // id must be the node advised.
          const type = range(pointer, MemRangeAttribute.PreferredLocationType);
          expect([MemLocationType.HostNuma, MemLocationType.Invalid]).toContain(type);
          if (type === MemLocationType.HostNuma) {
            expect(range(pointer, MemRangeAttribute.PreferredLocationId)).toBe(numa);
          }
          suite.driver.memAdvise(pointer, size, MemAdvise.UnsetPreferredLocation, host);
          expect(range(pointer, MemRangeAttribute.PreferredLocationType)).toBe(MemLocationType.Invalid);
          expect(range(pointer, MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_INVALID);
        });
      },
    );

    it('SetAccessedBy / UnsetAccessedBy for the device and the host show in memRangeGetAccessedBy', () => {
      withManaged((pointer) => {
        suite.driver.memAdvise(pointer, size, MemAdvise.SetAccessedBy, device());
        suite.driver.memAdvise(pointer, size, MemAdvise.SetAccessedBy, host);
        const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
        expect(sorted(suite.driver.memRangeGetAccessedBy(pointer, size))).toEqual(
          sorted([CU_DEVICE_CPU, suite.device]),
        );
        suite.driver.memAdvise(pointer, half, MemAdvise.UnsetAccessedBy, device());
        // The device no longer has the advice on the whole range; the second half still does.
        expect(suite.driver.memRangeGetAccessedBy(pointer, size)).toEqual([CU_DEVICE_CPU]);
        expect(sorted(suite.driver.memRangeGetAccessedBy(pointer + BigInt(half), half))).toEqual(
          sorted([CU_DEVICE_CPU, suite.device]),
        );
        suite.driver.memAdvise(pointer, size, MemAdvise.UnsetAccessedBy, host);
        suite.driver.memAdvise(pointer, size, MemAdvise.UnsetAccessedBy, device());
        expect(suite.driver.memRangeGetAccessedBy(pointer, size)).toEqual([]);
      });
    });

    it('memPrefetchAsync to the device and to the host shows in the LastPrefetchLocation attributes, and data survives', () => {
      withManaged((pointer) => {
        const data = randomBytes(size);
        suite.driver.memcpyHtoDAsync(pointer, data, suite.stream);
        suite.driver.memPrefetchAsync(pointer, size, device(), suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocation)).toBe(suite.device);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocationType)).toBe(MemLocationType.Device);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocationId)).toBe(suite.device);
        expectSameBytes(readBack(suite.driver, pointer, size), data);
        suite.driver.memPrefetchAsync(pointer, half, host, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocation, half)).toBe(CU_DEVICE_CPU);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocationType, half)).toBe(MemLocationType.Host);
        expect(range(pointer + BigInt(half), MemRangeAttribute.LastPrefetchLocation, half)).toBe(
          suite.device,
        );
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocation)).toBe(CU_DEVICE_INVALID);
        expectSameBytes(suite.driver.hostView(pointer, size), data);
      });
    });

    suite.itUnless(
      () => hostNumaReason(suite),
      'memPrefetchAsync to the host NUMA node shows as HostNuma with that node id',
      () => {
        const numa = suite.driver.deviceGetAttribute(DeviceAttribute.HostNumaId, suite.device);
        withManaged((pointer) => {
          suite.driver.memPrefetchAsync(
            pointer,
            size,
            { type: MemLocationType.HostNuma, id: numa },
            suite.stream,
          );
          suite.driver.streamSynchronize(suite.stream);
          expect(range(pointer, MemRangeAttribute.LastPrefetchLocationType)).toBe(MemLocationType.HostNuma);
          expect(range(pointer, MemRangeAttribute.LastPrefetchLocationId)).toBe(numa);
        });
      },
    );

    it('memAdvise, memPrefetchAsync and memRangeGetAttribute refuse memory that is not managed', () => {
      const pointer = suite.driver.memAlloc(size);
      try {
        expectCudaError(
          () => suite.driver.memAdvise(pointer, size, MemAdvise.SetReadMostly, device()),
          'cuMemAdvise',
        );
        expectCudaError(
          () => suite.driver.memPrefetchAsync(pointer, size, device(), suite.stream),
          'cuMemPrefetchAsync',
        );
        expectCudaError(() => range(pointer, MemRangeAttribute.ReadMostly), 'cuMemRangeGetAttribute');
      } finally {
        suite.driver.streamSynchronize(suite.stream);
        suite.driver.memFree(pointer);
      }
    });

    it('memAdvise with an unknown advice value fails', () => {
      withManaged((pointer) => {
        expectCudaError(() => suite.driver.memAdvise(pointer, size, 99, device()), 'cuMemAdvise');
      });
    });

    suite.itWith(
      'hostNumaLocations',
      'SetAccessedBy with a HostNuma location fails (only Device or Host may access)',
      () => {
        withManaged((pointer) => {
          // cuda.h (cuMemAdvise, SET_ACCESSED_BY): "All other location types are invalid."
          expectCudaError(
            () =>
              suite.driver.memAdvise(pointer, size, MemAdvise.SetAccessedBy, {
                type: MemLocationType.HostNuma,
                id: 0,
              }),
            'cuMemAdvise',
          );
        });
      },
    );

    suite.itWith(
      'managedMemoryPools',
      'memAdvise on memory from a managed pool is refused (CUDA 13.0 driver behaviour)',
      () => {
        withManagedPoolMemory(suite.driver, suite.device, suite.stream, half, (pointer) => {
          suite.driver.streamSynchronize(suite.stream);
          expectCudaError(
            () => suite.driver.memAdvise(pointer, half, MemAdvise.SetReadMostly, device()),
            'cuMemAdvise',
          );
        });
      },
    );

    it("a Host location's id is ignored (cuda.h): Host with id 9 advises and prefetches to the host", () => {
      withManaged((pointer) => {
        const hostNine = { type: MemLocationType.Host, id: 9 };
        suite.driver.memAdvise(pointer, size, MemAdvise.SetPreferredLocation, hostNine);
        expect(range(pointer, MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_CPU);
        suite.driver.memAdvise(pointer, size, MemAdvise.SetAccessedBy, hostNine);
        expect(suite.driver.memRangeGetAccessedBy(pointer, size)).toEqual([CU_DEVICE_CPU]);
        suite.driver.memPrefetchAsync(pointer, size, hostNine, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(range(pointer, MemRangeAttribute.LastPrefetchLocation)).toBe(CU_DEVICE_CPU);
      });
    });
  });
}

/** Why host NUMA cases cannot run on this driver and machine, or undefined when they can. */
export function hostNumaReason(suite: SuiteContext): string | undefined {
  if (!suite.driver.capabilities.hostNumaLocations) return 'driver lacks hostNumaLocations';
  if (suite.driver.deviceGetAttribute(DeviceAttribute.HostNumaId, suite.device) < 0) {
    return 'not applicable: the host has no NUMA node for this device';
  }
  return undefined;
}
