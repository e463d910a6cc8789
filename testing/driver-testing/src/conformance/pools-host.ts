import {
  DeviceAttribute,
  MemAccessFlags,
  MemAllocationType,
  MemHandleType,
  type MemLocation,
  MemLocationType,
  PointerAttribute,
} from '@cumem/core-types';
import { expect } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import {
  expectCudaError,
  expectSameBytes,
  MiB,
  poolProperties,
  randomBytes,
  readBack,
  withManagedPoolMemory,
} from './support.js';
/**
 * Pools of host and managed memory (CUDA 13.0 drivers) and the pool-creation failures that
 * depend on the location: the part of {@link poolCases} that needs a capability flag.
 */
export function hostPoolCases(suite: SuiteContext): void {
  /** A pinned pool at `location`, read-write for the suite device. */
  const hostPool = (location: MemLocation) => {
    const pool = suite.driver.memPoolCreate(poolProperties(MemAllocationType.Pinned, location));
    // Devices may need explicit access to host pools; granting it is valid either way.
    suite.driver.memPoolSetAccess(
      pool,
      { type: MemLocationType.Device, id: suite.device },
      MemAccessFlags.ReadWrite,
    );
    return pool;
  };

  suite.itWith(
    'hostMemoryPools',
    'a Host pool hands out host-accessible memory that device copies reach',
    () => {
      const pool = hostPool({ type: MemLocationType.Host, id: 0 });
      const size = 256 * 1024;
      const data = randomBytes(size);
      const device = suite.driver.memAlloc(size);
      const pointer = suite.driver.memAllocFromPoolAsync(size, pool, suite.stream);
      try {
        expect(suite.driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged)).toBe(0);
        suite.driver.memcpyHtoD(device, data);
        // cuMemcpyHtoD from pageable memory may return before the DMA lands.
        suite.driver.contextSynchronize();
        suite.driver.memcpyAsync(pointer, device, size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(suite.driver.hostView(pointer, size), data);
      } finally {
        suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        suite.driver.memFree(device);
        suite.driver.memPoolDestroy(pool);
      }
    },
  );

  suite.itUnless(
    () => {
      const capabilities = suite.driver.capabilities;
      if (!capabilities.hostMemoryPools || !capabilities.hostNumaLocations) {
        return 'driver lacks hostMemoryPools or hostNumaLocations';
      }
      const numa = suite.driver.deviceGetAttribute(DeviceAttribute.HostNumaId, suite.device);
      if (numa < 0) return 'not applicable: the host has no NUMA node for this device';
      if (suite.driver.deviceGetAttribute(DeviceAttribute.HostNumaMemoryPoolsSupported, suite.device) !== 1) {
        return 'not applicable: the device does not support HostNuma memory pools';
      }
      return undefined;
    },
    "a HostNuma pool on the device's host node hands out host-accessible memory, copied with memcpyAsync",
    () => {
      // Rule for every layer above the adapters: copies into and out of host-pool memory go
      // through memcpyAsync (unified addressing; JS memory by addressOf). The CUDA 13.0 driver
      // refuses cuMemcpyHtoDAsync / cuMemcpyDtoHAsync on a host-pool pointer (driver 580.159:
      // CUDA_ERROR_INVALID_VALUE), though it takes cuMemHostAlloc memory there.
      // The reference driver refuses them the same way, so CI catches a layer that breaks the rule.
      const numa = suite.driver.deviceGetAttribute(DeviceAttribute.HostNumaId, suite.device);
      const pool = hostPool({ type: MemLocationType.HostNuma, id: numa });
      const size = 64 * 1024;
      const data = randomBytes(size);
      const pointer = suite.driver.memAllocFromPoolAsync(size, pool, suite.stream);
      try {
        suite.driver.memcpyAsync(pointer, suite.driver.addressOf(data), size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(suite.driver.hostView(pointer, size), data);
        const result = new Uint8Array(size);
        suite.driver.memcpyAsync(suite.driver.addressOf(result), pointer, size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(result, data);
        expectCudaError(() => suite.driver.memcpyHtoDAsync(pointer, data, suite.stream), 'cuMemcpyHtoDAsync');
        expectCudaError(
          () => suite.driver.memcpyDtoHAsync(result, pointer, suite.stream),
          'cuMemcpyDtoHAsync',
        );
      } finally {
        suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        suite.driver.memPoolDestroy(pool);
      }
    },
  );

  suite.itWith(
    'managedMemoryPools',
    'a Managed pool hands out managed memory, readable from the host',
    () => {
      const size = 2 * MiB;
      const data = randomBytes(size);
      withManagedPoolMemory(suite.driver, suite.device, suite.stream, size, (pointer) => {
        expect(suite.driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged)).toBe(1);
        suite.driver.memcpyHtoDAsync(pointer, data, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(suite.driver.hostView(pointer, size), data);
        expectSameBytes(readBack(suite.driver, pointer, size), data);
      });
    },
  );

  suite.itWith(
    'hostNumaLocations',
    'memPoolCreate with a HostNumaCurrent location fails with CUDA_ERROR_INVALID_VALUE',
    () => {
      // cuda.h (cuMemPoolCreate): "Specifying CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT ... will result in CUDA_ERROR_INVALID_VALUE".
      expectCudaError(
        () =>
          suite.driver.memPoolCreate(
            poolProperties(MemAllocationType.Pinned, { type: MemLocationType.HostNumaCurrent, id: 0 }),
          ),
        'cuMemPoolCreate',
        'CUDA_ERROR_INVALID_VALUE',
      );
    },
  );

  suite.itWith(
    'hostMemoryPools',
    'memPoolCreate of a Host pool with IPC handle types fails with CUDA_ERROR_INVALID_VALUE',
    () => {
      // cuda.h (cuMemPoolCreate): Host pools are not IPC capable; other handleTypes give CUDA_ERROR_INVALID_VALUE.
      expectCudaError(
        () =>
          suite.driver.memPoolCreate(
            poolProperties(
              MemAllocationType.Pinned,
              { type: MemLocationType.Host, id: 0 },
              MemHandleType.PosixFileDescriptor,
            ),
          ),
        'cuMemPoolCreate',
        'CUDA_ERROR_INVALID_VALUE',
      );
    },
  );
}
