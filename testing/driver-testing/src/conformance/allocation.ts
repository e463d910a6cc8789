import { MemAttachFlags, MemHostAllocFlags } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, randomBytes, readBack } from './support.js';

/** Classic allocation: device, page-locked host and managed memory, and their frees. */
export function allocationCases(suite: SuiteContext): void {
  describe('allocation', () => {
    it('memAlloc gives non-null, 256-byte aligned, non-overlapping allocations; memFree frees them', () => {
      const sizes = [1, 1000, MiB, 3 * MiB + 5];
      const pointers = sizes.map((size) => suite.driver.memAlloc(size));
      try {
        const ranges = pointers.map(
          (pointer, index) => [pointer, pointer + BigInt(sizes[index] as number)] as const,
        );
        for (const [start] of ranges) {
          expect(start).not.toBe(0n);
          expect(start % 256n).toBe(0n);
        }
        for (const [startA, endA] of ranges) {
          for (const [startB, endB] of ranges) {
            if (startA !== startB) expect(endA <= startB || endB <= startA).toBe(true);
          }
        }
      } finally {
        for (const pointer of pointers) suite.driver.memFree(pointer);
      }
    });

    it('memAlloc(0) fails with CUDA_ERROR_INVALID_VALUE', () => {
      // cuda.h: "If bytesize is 0, cuMemAlloc() returns CUDA_ERROR_INVALID_VALUE."
      expectCudaError(() => suite.driver.memAlloc(0), 'cuMemAlloc', 'CUDA_ERROR_INVALID_VALUE');
    });

    it('memAlloc of more than any device has fails with CUDA_ERROR_OUT_OF_MEMORY', () => {
      // 1 PiB: no device has it, and the failure leaves the context usable.
      expectCudaError(() => suite.driver.memAlloc(2 ** 50), 'cuMemAlloc', 'CUDA_ERROR_OUT_OF_MEMORY');
      const pointer = suite.driver.memAlloc(4096);
      suite.driver.memFree(pointer);
    });

    it('memFree of a pointer already freed fails', () => {
      // Nothing is allocated in between, so the address cannot belong to a new allocation.
      const pointer = suite.driver.memAlloc(64 * 1024);
      suite.driver.memFree(pointer);
      expectCudaError(() => suite.driver.memFree(pointer), 'cuMemFree');
    });

    it('memHostAlloc gives host memory for each flag that hostView reads and writes, and memFreeHost frees it', () => {
      for (const flags of [
        0,
        MemHostAllocFlags.Portable,
        MemHostAllocFlags.DeviceMap,
        MemHostAllocFlags.Portable | MemHostAllocFlags.DeviceMap,
      ]) {
        const size = 64 * 1024 + 3;
        const pointer = suite.driver.memHostAlloc(size, flags);
        try {
          expect(pointer).not.toBe(0n);
          const data = randomBytes(size);
          suite.driver.hostView(pointer, size).set(data);
          // The device side sees what the host wrote.
          expectSameBytes(readBack(suite.driver, pointer, size), data);
        } finally {
          suite.driver.memFreeHost(pointer);
        }
      }
    });

    it('hostView of memHostAlloc memory sees device writes after a copy', () => {
      const size = MiB;
      const data = randomBytes(size);
      const host = suite.driver.memHostAlloc(size, 0);
      const device = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyHtoDAsync(device, data, suite.stream);
        suite.driver.memcpyAsync(host, device, size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(suite.driver.hostView(host, size), data);
        // A view of an interior range sees the same bytes.
        expectSameBytes(suite.driver.hostView(host + 100n, 50), data.subarray(100, 150));
      } finally {
        suite.driver.memFree(device);
        suite.driver.memFreeHost(host);
      }
    });

    it('memAllocManaged with Global and Host attachment gives memory both sides read and write', () => {
      for (const flags of [MemAttachFlags.Global, MemAttachFlags.Host]) {
        const size = 2 * MiB;
        const pointer = suite.driver.memAllocManaged(size, flags);
        try {
          expect(pointer).not.toBe(0n);
          const data = randomBytes(size);
          suite.driver.memcpyHtoD(pointer, data);
          // cuMemcpyHtoD from pageable memory may return before the DMA lands.
          suite.driver.contextSynchronize();
          expectSameBytes(suite.driver.hostView(pointer, size), data);
          const again = randomBytes(size);
          suite.driver.hostView(pointer, size).set(again);
          expectSameBytes(readBack(suite.driver, pointer, size), again);
        } finally {
          suite.driver.memFree(pointer);
        }
      }
    });

    it('memAllocManaged(0) fails with CUDA_ERROR_INVALID_VALUE', () => {
      // cuda.h: "If bytesize is 0, cuMemAllocManaged returns CUDA_ERROR_INVALID_VALUE."
      expectCudaError(
        () => suite.driver.memAllocManaged(0, MemAttachFlags.Global),
        'cuMemAllocManaged',
        'CUDA_ERROR_INVALID_VALUE',
      );
    });

    it('memAllocManaged with flags other than Global or Host fails', () => {
      // cuda.h: flags "must be one of CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST".
      expectCudaError(() => suite.driver.memAllocManaged(4096, 0), 'cuMemAllocManaged');
    });

    it('memAllocFromPoolAsync / memFreeAsync on the device pool give distinct, usable allocations', () => {
      const pool = suite.driver.deviceGetMemPool(suite.device);
      const pointers = [1000, 4096, MiB].map((size) =>
        suite.driver.memAllocFromPoolAsync(size, pool, suite.stream),
      );
      try {
        expect(new Set(pointers).size).toBe(3);
        for (const pointer of pointers) expect(pointer).not.toBe(0n);
      } finally {
        for (const pointer of pointers) suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
      }
    });
  });
}
