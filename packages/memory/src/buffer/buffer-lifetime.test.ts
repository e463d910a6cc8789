// Buffer's lifetime: wrapping a pointer (fromHandle) and closing (split from buffer.test.ts).
import { CudaStateError, Device } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedBuffer } from '../resources/managed/managed-buffer.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream, Stream } from '../stream/stream.js';
import { Buffer } from './buffer.js';

describeEachDriver(adapters, 'Buffer', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('fromHandle', () => {
    // The device's default pool, made once the driver is in use.
    let mr: DeviceMemoryResource;
    beforeAll(() => {
      mr = new DeviceMemoryResource(0);
    });

    it('borrows memory with neither mr nor owner, asking the driver how it is accessible', () => {
      using parent = mr.allocate(128);
      const borrowed = Buffer.fromHandle(parent.handle, 128);
      expect(borrowed.memoryResource).toBeNull();
      expect(borrowed.owner).toBeNull();
      expect(borrowed.deviceId).toBe(0);
      expect(borrowed.isDeviceAccessible).toBe(true);
      expect(borrowed.isHostAccessible).toBe(false);
      borrowed.fill(3);
      borrowed.close();
      const bytes = new Uint8Array(128);
      parent.copyTo(bytes);
      expect(bytes[0]).toBe(3);
      expect(Buffer.fromHandle(Number(parent.handle), 128).handle).toBe(parent.handle);
    });

    it('keeps an owner alive and frees through mr on close', () => {
      const pool = new DeviceMemoryResource(0, {});
      // A raw pointer from the driver: were it a Buffer's, that Buffer's finalizer would free it
      // again after \`owned\` did, which crashes the real driver.
      const raw = entry.driver.memAllocFromPoolAsync(4096, pool.handle, defaultStream().handle);
      const owner = { name: 'owner' };
      const kept = Buffer.fromHandle(raw, 4096, { owner });
      expect(kept.owner).toBe(owner);
      expect(pool.attributes.usedMemCurrent).toBe(4096);
      const owned = Buffer.fromHandle(raw, 4096, { mr: pool });
      expect(owned.memoryResource).toBe(pool);
      owned.close();
      Stream.create().sync();
      expect(pool.attributes.usedMemCurrent).toBe(0);
      pool.close();
    });

    it('refuses mr and owner together, and an mr that is not a resource', () => {
      using parent = mr.allocate(16);
      expect(() => Buffer.fromHandle(parent.handle, 16, { mr, owner: {} })).toThrow(TypeError);
      expect(() => Buffer.fromHandle(parent.handle, 16, { mr: {} as never })).toThrow(TypeError);
      expect(() => Buffer.fromHandle(-1, 16)).toThrow(RangeError);
      expect(() => Buffer.fromHandle('0x10' as never, 16)).toThrow(TypeError);
    });

    it('returns a ManagedBuffer from ManagedBuffer.fromHandle, for managed memory only', () => {
      const managed = new ManagedMemoryResource();
      using source = managed.allocate(64);
      const wrapped = ManagedBuffer.fromHandle(source.handle, 64);
      expect(wrapped).toBeInstanceOf(ManagedBuffer);
      expect(wrapped.isManaged).toBe(true);
      wrapped.readMostly = true;
      expect(source.readMostly).toBe(true);
      using device = mr.allocate(64);
      expect(() => ManagedBuffer.fromHandle(device.handle, 64)).toThrow(TypeError);
      expect(() => ManagedBuffer.fromHandle(device.handle, 64, { mr })).toThrow(TypeError);
    });
  });

  describe('close', () => {
    it('is stream-ordered, harmless twice, and makes later use a CudaStateError naming Buffer', () => {
      const pool = new DeviceMemoryResource(0, {});
      using stream = Stream.create();
      const buffer = pool.allocate(1000, { stream });
      buffer.close();
      buffer.close();
      expect(buffer.isClosed).toBe(true);
      stream.sync();
      expect(pool.attributes.usedMemCurrent).toBe(0);
      expect(() => buffer.fill(0)).toThrow(CudaStateError);
      expect(() => buffer.fill(0)).toThrow(/Buffer is closed/);
      expect(() => buffer.copyFrom(new Uint8Array(1000))).toThrow(CudaStateError);
      expect(() => buffer.copyTo(new Uint8Array(1000))).toThrow(CudaStateError);
      expect(() => buffer.slice(0)).toThrow(CudaStateError);
      expect(() => buffer.hostView()).toThrow(CudaStateError);
      expect(() => buffer.ipcDescriptor).toThrow(CudaStateError);
      const other = pool.allocate(8);
      other.close({ stream });
      stream.sync();
      expect(pool.attributes.usedMemCurrent).toBe(0);
      pool.close();
    });

    it('frees at the end of a using block', () => {
      const pool = new DeviceMemoryResource(0, {});
      {
        using buffer = pool.allocate(64);
        expect(buffer.isClosed).toBe(false);
        expect(pool.attributes.usedMemCurrent).toBe(64);
      }
      Stream.create(new Device(0)).sync();
      expect(pool.attributes.usedMemCurrent).toBe(0);
      pool.close();
    });

    it('after the resource closed, outstanding buffers still close', () => {
      const pool = new DeviceMemoryResource(0, {});
      const buffer = pool.allocate(64);
      pool.close();
      expect(() => buffer.close()).not.toThrow();
    });
  });
});
