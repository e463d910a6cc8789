// cuda.core's early tests of its VMM-backed memory resource, translated case by case.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/test_vmm_memory_resource.py at commit
// 228a6458f43852b9b8820ad6db7ca419eaa27d0e (the class TestVMMAllocatedMemoryResource, made through
// `Device.create_vmm_memory_resource`). cumem's counterpart is `new VirtualMemoryResource(device,
// options?)`; the later VirtualMemoryResource cases of test_memory.py are in
// cuda-core-test-memory-resources.test.ts. Each case's title starts with the upstream test name.
//
// Deviations tested as cumem documents them: a closed Buffer keeps its `handle` readable and says
// `isClosed` (API.md: a closed object refuses use with CudaStateError), where cuda.core sets the
// handle to None; `deallocate` of a pointer the resource never made is a RangeError naming the
// pointer (VirtualMemoryResource.deallocate), where cuda.core raises ValueError.
//
// Not ported: none.
import type { Driver } from '@cumem/core-types';
import { CudaStateError, VirtualMemoryDeviceAttribute } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { Device, useDriver, VirtualMemoryResource } from '../../src/index.js';
import { adapters } from '../adapters.js';

// Upstream skips each case where device 0 has no virtual memory management; here the whole
// block does (a missing feature of the machine, so 'not applicable').
const needsVmm = (driver: Driver) =>
  driver.deviceGetAttribute(VirtualMemoryDeviceAttribute.VirtualMemoryManagementSupported, 0) === 0
    ? 'not applicable: device 0 has no virtual memory management'
    : undefined;

describeEachDriver(
  adapters,
  'cuda.core test_vmm_memory_resource.py',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_vmm_memory_resource_creation: the resource is on device 0, device-accessible, not host-accessible', () => {
      const device = new Device(0);
      const mr = new VirtualMemoryResource(device);
      expect(mr.deviceId).toBe(device.ordinal);
      expect(mr.isDeviceAccessible).toBe(true);
      expect(mr.isHostAccessible).toBe(false);
      mr.close();
    });

    it('test_vmm_memory_resource_allocation_deallocation: a 1 MiB buffer reports its size, resource and device; close() closes it', () => {
      const mr = new VirtualMemoryResource(0);
      const size = 1024 * 1024;
      const buffer = mr.allocate(size);
      expect(buffer.size).toBe(size);
      expect(buffer.memoryResource).toBe(mr);
      expect(buffer.isDeviceAccessible).toBe(true);
      expect(buffer.isHostAccessible).toBe(false);
      expect(buffer.deviceId).toBe(0);
      expect(buffer.isClosed).toBe(false);
      buffer.close();
      // cuda.core reports the handle as None; cumem marks the buffer closed and refuses work.
      expect(buffer.isClosed).toBe(true);
      expect(() => buffer.fill(0)).toThrow(CudaStateError);
      mr.close();
    });

    it('test_vmm_memory_resource_multiple_allocations: five buffers of 1..5 KiB, each its own size and resource', () => {
      const mr = new VirtualMemoryResource(0);
      const buffers = [1, 2, 3, 4, 5].map((count) => mr.allocate(count * 1024));
      for (const [index, buffer] of buffers.entries()) {
        expect(buffer.size).toBe((index + 1) * 1024);
        expect(buffer.memoryResource).toBe(mr);
      }
      // Five live allocations at five distinct addresses.
      expect(new Set(buffers.map((buffer) => buffer.handle)).size).toBe(5);
      for (const buffer of buffers) buffer.close();
      for (const buffer of buffers) expect(buffer.isClosed).toBe(true);
      mr.close();
    });

    it("test_vmm_memory_resource_with_different_allocation_types: allocationType 'pinned' allocates 1 KiB", () => {
      const mr = new VirtualMemoryResource(0, { allocationType: 'pinned' });
      const buffer = mr.allocate(1024);
      expect(buffer.size).toBe(1024);
      buffer.close();
      mr.close();
    });

    it('test_vmm_memory_resource_invalid_device: device 999 is refused before anything is allocated', () => {
      // Upstream forges a Device's id; cumem's Device cannot be forged, so the bad ordinal is
      // given both as a number and to Device itself.
      expect(() => new VirtualMemoryResource(999)).toThrow(RangeError);
      expect(() => new VirtualMemoryResource(999)).toThrow(/999 does not exist/);
      expect(() => new VirtualMemoryResource(new Device(999))).toThrow(RangeError);
    });

    it('test_vmm_memory_resource_deallocate_untracked_pointer: a pointer the resource never made is refused (RangeError in cumem)', () => {
      const mr = new VirtualMemoryResource(0);
      expect(() => mr.deallocate(0x12345678, 1024)).toThrow(RangeError);
      expect(() => mr.deallocate(0x12345678, 1024)).toThrow(
        /0x12345678 is not an allocation of this VirtualMemoryResource/,
      );
      mr.close();
    });
  },
  { requires: needsVmm },
);
