import { CudaStateError } from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from '../stream/stream.js';
import { Buffer } from './buffer.js';

function pattern(size: number, seed = 1): Uint8Array {
  return Uint8Array.from({ length: size }, (_, index) => (index * 31 + seed) & 0xff);
}

describeEachDriver(adapters, 'Buffer', (entry) => {
  let mr: DeviceMemoryResource;
  beforeAll(() => {
    useDriver(entry.driver);
    mr = new DeviceMemoryResource(0);
  });

  describe('properties', () => {
    it('reports size, handle, device, resource and accessibility of a device allocation', () => {
      using buffer = mr.allocate(1024);
      expect(buffer.size).toBe(1024);
      expect(typeof buffer.handle).toBe('bigint');
      expect(buffer.handle).not.toBe(0n);
      expect(buffer.deviceId).toBe(0);
      expect(buffer.memoryResource).toBe(mr);
      expect(buffer.owner).toBeNull();
      expect(buffer.isDeviceAccessible).toBe(true);
      expect(buffer.isHostAccessible).toBe(false);
      expect(buffer.isManaged).toBe(false);
      expect(buffer.isMapped).toBe(false);
      expect(buffer.isClosed).toBe(false);
    });

    it('cannot be constructed directly', () => {
      expect(() => new (Buffer as unknown as new () => Buffer)()).toThrow(TypeError);
    });
  });

  describe('copies', () => {
    it('round-trips host memory through the device, without and with a stream', async () => {
      const data = pattern(4096);
      using buffer = mr.allocate(4096);
      buffer.copyFrom(data);
      const back = new Uint8Array(4096);
      expect(buffer.copyTo(back)).toBe(back);
      expect(back).toEqual(data);

      using stream = Stream.create();
      const other = pattern(4096, 7);
      buffer.copyFrom(other, { stream });
      const again = new Uint8Array(4096);
      buffer.copyTo(again, { stream });
      await stream.syncAsync();
      expect(again).toEqual(other);
    });

    it('accepts ArrayBuffer and other views in both directions', () => {
      const words = Uint32Array.from([1, 2, 3, 4]);
      using buffer = mr.allocate(16);
      buffer.copyFrom(words.buffer);
      const back = new ArrayBuffer(16);
      buffer.copyTo(back);
      expect(new Uint32Array(back)).toEqual(words);
      const view = new DataView(new ArrayBuffer(16));
      buffer.copyTo(view);
      expect(view.getUint32(12, true)).toBe(4);
    });

    it('copies device to device, into a given buffer and into a new one from the same resource', () => {
      const data = pattern(512, 3);
      using source = mr.allocate(512);
      source.copyFrom(data);
      using target = mr.allocate(512);
      source.copyTo(target);
      const back = new Uint8Array(512);
      target.copyTo(back);
      expect(back).toEqual(data);

      using copy = source.copyTo();
      expect(copy).toBeInstanceOf(Buffer);
      expect(copy).not.toBe(source);
      expect(copy.memoryResource).toBe(mr);
      const copied = new Uint8Array(512);
      copy.copyTo(copied);
      expect(copied).toEqual(data);

      using stream = Stream.create();
      using streamed = source.copyTo({ stream });
      stream.sync();
      const fromStream = new Uint8Array(512);
      streamed.copyTo(fromStream);
      expect(fromStream).toEqual(data);

      using filled = mr.allocate(512);
      filled.copyFrom(source);
      const fromCopyFrom = new Uint8Array(512);
      filled.copyTo(fromCopyFrom);
      expect(fromCopyFrom).toEqual(data);
    });

    it('refuses a size mismatch with RangeError and another kind of value with TypeError', () => {
      using buffer = mr.allocate(64);
      using small = mr.allocate(32);
      expect(() => buffer.copyFrom(new Uint8Array(63))).toThrow(RangeError);
      expect(() => buffer.copyTo(new Uint8Array(65))).toThrow(RangeError);
      expect(() => buffer.copyFrom(small)).toThrow(RangeError);
      expect(() => buffer.copyTo(small)).toThrow(RangeError);
      expect(() => buffer.copyFrom(42 as never)).toThrow(TypeError);
      expect(() => buffer.copyFrom('data' as never)).toThrow(TypeError);
      expect(() => buffer.copyTo(new Uint8Array(64), { stream: 1 } as never)).toThrow(TypeError);
    });

    it('round-trips JS memory through pinned, legacy pinned and managed buffers, without and with a stream', async () => {
      const resources = [
        new PinnedMemoryResource(),
        new LegacyPinnedMemoryResource(),
        new ManagedMemoryResource(),
      ];
      using stream = Stream.create();
      for (const resource of resources) {
        using buffer = resource.allocate(4096);
        const data = pattern(4096, 11);
        buffer.copyFrom(data);
        const back = new Uint8Array(4096);
        buffer.copyTo(back);
        expect(back).toEqual(data);
        const other = pattern(4096, 29);
        buffer.copyFrom(other.buffer, { stream });
        const again = new Uint8Array(4096);
        buffer.copyTo(again, { stream });
        await stream.syncAsync();
        expect(again).toEqual(other);
        expect(buffer.hostView()).toEqual(other);
      }
      for (const resource of resources) resource.close();
    });

    it('copies JS memory with cuMemcpyHtoD/DtoH only for device memory (host pools refuse them)', () => {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const device = new DeviceMemoryResource(0);
        const pinned = new PinnedMemoryResource();
        using onDevice = device.allocate(64);
        using onHost = pinned.allocate(64);
        const data = pattern(64, 5);
        log.reset();
        onDevice.copyFrom(data);
        onDevice.copyTo(new Uint8Array(64));
        expect(log.calls.filter((call) => call.startsWith('memcpy'))).toEqual([
          'memcpyHtoDAsync',
          'memcpyDtoHAsync',
        ]);
        log.reset();
        onHost.copyFrom(data);
        const back = new Uint8Array(64);
        onHost.copyTo(back);
        expect(log.calls.filter((call) => call.startsWith('memcpy'))).toEqual(['memcpyAsync', 'memcpyAsync']);
        expect(back).toEqual(data);
        pinned.close();
      });
    });

    it('copies nothing for an empty buffer', () => {
      using empty = mr.allocate(0);
      expect(empty.size).toBe(0);
      empty.copyFrom(new Uint8Array(0));
      expect(empty.copyTo(new Uint8Array(0)).byteLength).toBe(0);
    });
  });

  describe('fill', () => {
    function read(buffer: Buffer): Uint8Array {
      const bytes = new Uint8Array(buffer.size);
      buffer.copyTo(bytes);
      return bytes;
    }

    it('fills with one byte', () => {
      using buffer = mr.allocate(100);
      buffer.fill(0xab);
      expect(read(buffer).every((byte) => byte === 0xab)).toBe(true);
      buffer.fill(0);
      expect(read(buffer).every((byte) => byte === 0)).toBe(true);
    });

    it('repeats 1-, 2- and 4-byte patterns, on a stream too', () => {
      using buffer = mr.allocate(16);
      buffer.fill(Uint8Array.of(7));
      expect(read(buffer)).toEqual(new Uint8Array(16).fill(7));
      buffer.fill(Uint8Array.of(1, 2));
      expect(Array.from(read(buffer).subarray(0, 4))).toEqual([1, 2, 1, 2]);
      buffer.fill(Uint16Array.of(0x0403));
      expect(Array.from(read(buffer).subarray(0, 4))).toEqual([3, 4, 3, 4]);
      using stream = Stream.create();
      buffer.fill(Uint8Array.of(9, 8, 7, 6), { stream });
      stream.sync();
      expect(Array.from(read(buffer).subarray(0, 8))).toEqual([9, 8, 7, 6, 9, 8, 7, 6]);
      buffer.fill(Float32Array.of(1));
      expect(new Float32Array(read(buffer).buffer)[3]).toBe(1);
    });

    it('refuses bad values', () => {
      using buffer = mr.allocate(6);
      expect(() => buffer.fill(256)).toThrow(RangeError);
      expect(() => buffer.fill(-1)).toThrow(RangeError);
      expect(() => buffer.fill(1.5)).toThrow(TypeError);
      expect(() => buffer.fill(Number.NaN)).toThrow(TypeError);
      expect(() => buffer.fill('1' as never)).toThrow(TypeError);
      expect(() => buffer.fill(new ArrayBuffer(1) as never)).toThrow(TypeError);
      expect(() => buffer.fill(new Uint8Array(3))).toThrow(RangeError);
      expect(() => buffer.fill(new Uint8Array(0))).toThrow(RangeError);
      expect(() => buffer.fill(new Uint8Array(8))).toThrow(RangeError);
      expect(() => buffer.fill(new Uint8Array(4))).toThrow(RangeError);
      expect(() => buffer.slice(1, 4).fill(new Uint8Array(2))).toThrow(RangeError);
    });
  });

  describe('slice', () => {
    it('views part of the allocation, owned by the parent', () => {
      const data = pattern(256);
      using parent = mr.allocate(256);
      parent.copyFrom(data);
      const view = parent.slice(16, 32);
      expect(view.size).toBe(32);
      expect(view.handle).toBe(parent.handle + 16n);
      expect(view.owner).toBe(parent);
      expect(view.memoryResource).toBe(mr);
      expect(view.deviceId).toBe(0);
      const bytes = new Uint8Array(32);
      view.copyTo(bytes);
      expect(bytes).toEqual(data.subarray(16, 48));
      view.fill(0);
      const whole = new Uint8Array(256);
      parent.copyTo(whole);
      expect(whole.subarray(16, 48).every((byte) => byte === 0)).toBe(true);
      expect(whole[15]).toBe(data[15]);
      expect(parent.slice(200).size).toBe(56);
      expect(parent.slice(256).size).toBe(0);
    });

    it('closing a view frees nothing; closing the parent closes its views', () => {
      const parent = mr.allocate(64);
      const view = parent.slice(0, 8);
      view.close();
      expect(view.isClosed).toBe(true);
      parent.fill(1);
      const other = parent.slice(8, 8);
      parent.close();
      expect(other.isClosed).toBe(true);
      expect(() => other.fill(0)).toThrow(CudaStateError);
    });

    it('refuses ranges that do not fit', () => {
      using parent = mr.allocate(64);
      expect(() => parent.slice(65)).toThrow(RangeError);
      expect(() => parent.slice(60, 8)).toThrow(RangeError);
      expect(() => parent.slice(-1)).toThrow(RangeError);
      expect(() => parent.slice(1.5)).toThrow(RangeError);
      expect(() => parent.slice('1' as never)).toThrow(TypeError);
    });
  });

  describe('hostView', () => {
    it('is zero-copy on pinned memory', () => {
      const pinned = new PinnedMemoryResource();
      using buffer = pinned.allocate(64);
      const view = buffer.hostView();
      view.set(pattern(64));
      const back = new Uint8Array(64);
      buffer.copyTo(back);
      expect(back).toEqual(pattern(64));
      buffer.fill(5);
      expect(view[63]).toBe(5);
      pinned.close();
    });

    it('is refused with TypeError for device memory', () => {
      using buffer = mr.allocate(64);
      expect(() => buffer.hostView()).toThrow(TypeError);
    });
  });

  it('works on legacy pinned memory', () => {
    const legacy = new LegacyPinnedMemoryResource();
    using buffer = legacy.allocate(32);
    expect(buffer.isHostAccessible).toBe(true);
    buffer.hostView().fill(4);
    const bytes = new Uint8Array(32);
    buffer.copyTo(bytes);
    expect(bytes.every((byte) => byte === 4)).toBe(true);
  });
});
