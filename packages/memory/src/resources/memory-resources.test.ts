import {
  CudaError,
  CudaStateError,
  Device,
  Host,
  MemAttachFlags,
  NotSupportedError,
} from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { Buffer } from '../buffer/buffer.js';
import { MemoryResource } from '../buffer/memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream, Stream } from '../stream/stream.js';
import { DeviceMemoryResource } from './device-memory-resource.js';
import { ManagedBuffer } from './managed/managed-buffer.js';
import { ManagedMemoryResource } from './managed/managed-memory-resource.js';
import { PinnedMemoryResource } from './pinned-memory-resource.js';

const mebibyte = 1024 * 1024;

// Device and managed memory resources, the registry and refused IPC; the page-locked host
// resources are in pinned-memory-resources.test.ts.
describeEachDriver(adapters, 'memory resources', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('DeviceMemoryResource', () => {
    it("without options uses the device's current pool and does not own it", () => {
      const mr = new DeviceMemoryResource(0);
      expect(mr.handle).toBe(entry.driver.deviceGetMemPool(0));
      expect(mr.isHandleOwned).toBe(false);
      expect(mr.isIpcEnabled).toBe(false);
      expect(mr.isMapped).toBe(false);
      expect(mr.uuid).toBeNull();
      expect(mr.deviceId).toBe(0);
      expect(mr.isDeviceAccessible).toBe(true);
      expect(mr.isHostAccessible).toBe(false);
      expect(mr.attributes.releaseThreshold).toBeGreaterThan(0);
      const buffer = mr.allocate(4096);
      mr.close();
      expect(mr.isClosed).toBe(true);
      expect(() => mr.allocate(1)).toThrow(CudaStateError);
      // The pool itself stays: a new resource on it allocates.
      const again = new DeviceMemoryResource(new Device(0));
      expect(again.handle).toBe(mr.handle);
      buffer.close();
      again.allocate(8).close();
    });

    it('with options owns a new pool with the given limits', () => {
      const mr = new DeviceMemoryResource(0, { maxSize: 8 * mebibyte, releaseThreshold: 4 * mebibyte });
      expect(mr.isHandleOwned).toBe(true);
      expect(mr.handle).not.toBe(entry.driver.deviceGetMemPool(0));
      const attributes = mr.attributes;
      expect(attributes.releaseThreshold).toBe(4 * mebibyte);
      expect(attributes.usedMemCurrent).toBe(0);
      const buffer = mr.allocate(mebibyte);
      expect(attributes.usedMemCurrent).toBe(mebibyte);
      expect(attributes.usedMemHigh).toBeGreaterThanOrEqual(mebibyte);
      expect(attributes.reservedMemCurrent).toBeGreaterThanOrEqual(mebibyte);
      expect(attributes.reservedMemHigh).toBeGreaterThanOrEqual(attributes.reservedMemCurrent);
      attributes.releaseThreshold = 0;
      expect(attributes.releaseThreshold).toBe(0);
      expect(() => {
        attributes.releaseThreshold = -1;
      }).toThrow(RangeError);
      buffer.close();
      defaultStream(0).sync();
      expect(attributes.usedMemCurrent).toBe(0);
      expect(() => mr.allocate(64 * mebibyte)).toThrow(CudaError);
      try {
        mr.allocate(64 * mebibyte);
      } catch (error) {
        expect(CudaError.isInstance(error) && error.codeName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
        expect((error as CudaError).call).toMatch(/cuMemAllocFromPoolAsync/);
      }
      mr.close();
      mr.close();
      expect(() => mr.attributes).toThrow(CudaStateError);
    });

    it('allocates and deallocates raw pointers on a stream', () => {
      const mr = new DeviceMemoryResource(0, {});
      using stream = Stream.create();
      // Raw pointers straight from the driver: a pointer a Buffer still owns would be freed a
      // second time by that Buffer's finalizer, which crashes the real driver.
      const pointer = entry.driver.memAllocFromPoolAsync(256, mr.handle, stream.handle);
      expect(mr.attributes.usedMemCurrent).toBe(256);
      mr.deallocate(pointer, 256, { stream });
      stream.sync();
      expect(mr.attributes.usedMemCurrent).toBe(0);
      const other = entry.driver.memAllocFromPoolAsync(256, mr.handle, defaultStream().handle);
      mr.deallocate(Number(other), 256);
      defaultStream().sync();
      expect(mr.attributes.usedMemCurrent).toBe(0);
      mr.close();
    });

    it('frees a buffer on its allocation stream when closed without one', () => {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const mr = new DeviceMemoryResource(0, {});
        using stream = Stream.create();
        const buffer = mr.allocate(64, { stream });
        log.reset();
        buffer.close();
        expect(log.calls).toEqual(['memFreeAsync']);
        mr.close();
      });
    });
  });

  describe('ManagedMemoryResource', () => {
    it('returns ManagedBuffers on which advice works', () => {
      const mr = new ManagedMemoryResource();
      expect(mr.isManaged).toBe(true);
      expect(mr.deviceId).toBe(-1);
      expect(mr.preferredLocation).toBeNull();
      using buffer = mr.allocate(4096);
      expect(buffer).toBeInstanceOf(ManagedBuffer);
      expect(buffer.isManaged).toBe(true);
      expect(buffer.isHostAccessible).toBe(true);
      buffer.readMostly = true;
      expect(buffer.readMostly).toBe(true);
      buffer.preferredLocation = new Device(0);
      expect(buffer.preferredLocation).toBe(new Device(0));
      buffer.accessedBy.add(new Device(0));
      expect(buffer.accessedBy.has(new Device(0))).toBe(true);
    });

    it('advises its preferred location on every allocation', () => {
      const onDevice = new ManagedMemoryResource({ preferredLocation: new Device(0) });
      expect(onDevice.deviceId).toBe(0);
      using first = onDevice.allocate(64);
      expect(first.preferredLocation).toBe(new Device(0));
      expect(first.deviceId).toBe(0);
      const onHost = new ManagedMemoryResource({ preferredLocation: new Host() });
      using second = onHost.allocate(64);
      expect(second.preferredLocation).toBe(new Host());
      expect(() => new ManagedMemoryResource({ preferredLocation: 0 as never })).toThrow(TypeError);
      using stream = Stream.create();
      onHost.deallocate(entry.driver.memAllocManaged(16, MemAttachFlags.Global), 16, { stream });
    });
  });

  describe('registry', () => {
    it('registers resources weakly by uuid', () => {
      const mr = new DeviceMemoryResource(0, {});
      const uuid = `test-${Math.random()}`;
      expect(mr.register(uuid)).toBe(mr);
      expect(mr.uuid).toBe(uuid);
      expect(MemoryResource.fromRegistry(uuid)).toBe(mr);
      expect(DeviceMemoryResource.fromRegistry(uuid)).toBe(mr);
      const other = new DeviceMemoryResource(0, {});
      expect(other.register(uuid)).toBe(mr);
      expect(() => mr.register('another')).toThrow(RangeError);
      expect(() => mr.register(42 as never)).toThrow(TypeError);
      expect(() => MemoryResource.fromRegistry('no-such-uuid')).toThrow(RangeError);
      mr.close();
      expect(() => MemoryResource.fromRegistry(uuid)).toThrow(RangeError);
      other.close();
    });
  });

  describe('interprocess sharing refused', () => {
    it('refuses IPC with NotSupportedError where the driver has none', () => {
      if (entry.driver.capabilities.interprocess) {
        const mr = new DeviceMemoryResource(0, { ipcEnabled: true });
        expect(mr.isIpcEnabled).toBe(true);
        mr.close();
        return;
      }
      expect(() => new DeviceMemoryResource(0, { ipcEnabled: true })).toThrow(NotSupportedError);
      expect(() => new PinnedMemoryResource({ ipcEnabled: true })).toThrow(NotSupportedError);
      expect(() => DeviceMemoryResource.fromAllocationHandle(0, 99)).toThrow(NotSupportedError);
      expect(() => PinnedMemoryResource.fromAllocationHandle(99)).toThrow(NotSupportedError);
    });

    it('refuses ipcDescriptor and getAllocationHandle on resources without IPC', () => {
      const mr = new DeviceMemoryResource(0, {});
      using buffer = mr.allocate(64);
      expect(() => buffer.ipcDescriptor).toThrow(TypeError);
      expect(() => mr.getAllocationHandle()).toThrow(TypeError);
      expect(() => Buffer.fromIpcDescriptor(mr, { data: 'AAAA', size: 64, uuid: null })).toThrow(RangeError);
      const descriptor = { data: Buffer.name.padEnd(64, 'x'), size: 64, uuid: null };
      expect(() =>
        Buffer.fromIpcDescriptor(mr, { ...descriptor, data: new Uint8Array(64) as never }),
      ).toThrow(TypeError);
      expect(() => Buffer.fromIpcDescriptor({} as never, descriptor)).toThrow(TypeError);
      mr.close();
    });
  });
});
