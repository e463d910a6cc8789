import {
  CudaStateError,
  type Driver,
  Host,
  MemAccessFlags,
  MemAllocationType,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { countingDriver, createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { Buffer } from '../buffer/buffer.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream, Stream } from '../stream/stream.js';
import { DeviceMemoryResource } from './device-memory-resource.js';
import { LegacyPinnedMemoryResource } from './legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from './managed/managed-memory-resource.js';
import { PinnedMemoryResource } from './pinned-memory-resource.js';

// Page-locked host memory resources (PinnedMemoryResource, LegacyPinnedMemoryResource) and what
// they need of the driver; the device, managed, registry and IPC cases are in memory-resources.test.ts.
describeEachDriver(adapters, 'pinned memory resources', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('PinnedMemoryResource', () => {
    it("without options is the driver's current host pool, not owned; close() leaves it", () => {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const mr = new PinnedMemoryResource();
        if (!entry.driver.capabilities.memoryPoolQueries) {
          // No cuMemGetMemPool (CUDA 12 forms): a pool of its own, as with options.
          expect(mr.isHandleOwned).toBe(true);
          mr.close();
          return;
        }
        const named = entry.driver.memGetMemPool(
          { type: MemLocationType.Host, id: 0 },
          MemAllocationType.Pinned,
        );
        expect(mr.handle).toBe(named);
        expect(mr.isHandleOwned).toBe(false);
        for (let ordinal = 0; ordinal < entry.driver.deviceGetCount(); ordinal++) {
          const location = { type: MemLocationType.Device, id: ordinal };
          expect(entry.driver.memPoolGetAccess(mr.handle, location)).toBe(MemAccessFlags.ReadWrite);
        }
        const pinned = mr.allocate(4096);
        pinned.hostView().fill(0x3c);
        log.reset();
        pinned.close();
        mr.close();
        expect(log.calls).not.toContain('memPoolDestroy');
        const again = new PinnedMemoryResource();
        expect(again.handle).toBe(named);
        expect(again.isHandleOwned).toBe(false);
        // Round trip host pool -> device -> host pool: the pool still works after close().
        const source = again.allocate(1 << 20);
        source.hostView().fill(0xa7);
        const onDevice = new DeviceMemoryResource(0).allocate(1 << 20);
        onDevice.copyFrom(source);
        const back = again.allocate(1 << 20);
        back.copyFrom(onDevice);
        expect(back.hostView().every((byte) => byte === 0xa7)).toBe(true);
        for (const buffer of [source, onDevice, back]) buffer.close();
        again.close();
        expect(log.calls).not.toContain('memPoolDestroy');
      });
    });

    it('with options (even {}) is a host pool of its own every device can access at full speed', () => {
      const mr = new PinnedMemoryResource({});
      expect(mr.deviceId).toBe(-1);
      expect(mr.numaId).toBe(-1);
      expect(mr.isDeviceAccessible).toBe(true);
      expect(mr.isHostAccessible).toBe(true);
      expect(mr.isHandleOwned).toBe(true);
      for (let ordinal = 0; ordinal < entry.driver.deviceGetCount(); ordinal++) {
        const access = entry.driver.memPoolGetAccess(mr.handle, {
          type: MemLocationType.Device,
          id: ordinal,
        });
        expect(access).toBe(MemAccessFlags.ReadWrite);
      }
      using buffer = mr.allocate(4096);
      expect(buffer.deviceId).toBe(-1);
      expect(buffer.isHostAccessible).toBe(true);
      buffer.hostView().fill(0x5a);
      const copy = new Uint8Array(4096);
      buffer.copyTo(copy);
      expect(copy.every((byte) => byte === 0x5a)).toBe(true);
      expect(mr.attributes.usedMemCurrent).toBe(4096);
      mr.close();
    });

    it('places memory on a NUMA node when asked (NotSupportedError on drivers without NUMA locations)', () => {
      const node = Math.max(0, deviceHostNuma(entry.driver));
      if (!entry.driver.capabilities.hostNumaLocations) {
        expect(() => new PinnedMemoryResource({ numaId: node })).toThrow(NotSupportedError);
        return;
      }
      const mr = new PinnedMemoryResource({ numaId: node, maxSize: 0 });
      expect(mr.numaId).toBe(node);
      mr.allocate(64).close();
      mr.close();
    });

    it('destroys its pool only once the buffers still open at close() are freed', () => {
      // Destroying a host pool with an allocation outstanding, then freeing it, crashes the
      // CUDA 13.0 driver at the next synchronization of that stream.
      withCountingDriver(useDriver, entry.driver, (log) => {
        const mr = new PinnedMemoryResource({});
        const first = mr.allocate(64);
        const second = mr.allocate(64);
        const empty = mr.allocate(0);
        const calls = () => log.calls.filter((call) => call === 'memFreeAsync' || call === 'memPoolDestroy');
        log.reset();
        mr.close();
        expect(mr.isClosed).toBe(true);
        expect(() => mr.allocate(8)).toThrow(CudaStateError);
        expect(calls()).toEqual([]);
        empty.close();
        first.close();
        expect(calls()).toEqual(['memFreeAsync']);
        second.close();
        expect(calls()).toEqual(['memFreeAsync', 'memFreeAsync', 'memPoolDestroy']);
        second.close();
        mr.close();
        expect(calls()).toEqual(['memFreeAsync', 'memFreeAsync', 'memPoolDestroy']);
      });
    });

    it('counts memory handed to it by Buffer.fromHandle before destroying its pool', () => {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const mr = new PinnedMemoryResource({});
        const raw = entry.driver.memAllocFromPoolAsync(256, mr.handle, defaultStream().handle);
        const adopted = Buffer.fromHandle(raw, 256, { mr });
        log.reset();
        mr.close();
        expect(log.calls).not.toContain('memPoolDestroy');
        adopted.close();
        expect(log.calls.filter((call) => call === 'memPoolDestroy')).toHaveLength(1);
      });
    });

    it('refuses negative NUMA ids other than -1', () => {
      expect(() => new PinnedMemoryResource({ numaId: -2 })).toThrow(RangeError);
      expect(() => new PinnedMemoryResource({ numaId: 0.5 })).toThrow(TypeError);
    });
  });

  describe('LegacyPinnedMemoryResource', () => {
    it('allocates page-locked host memory', () => {
      const mr = new LegacyPinnedMemoryResource();
      expect(mr.deviceId).toBe(-1);
      expect(mr.isHostAccessible).toBe(true);
      expect(mr.isDeviceAccessible).toBe(true);
      const buffer = mr.allocate(100);
      buffer.hostView()[99] = 7;
      const copy = new Uint8Array(100);
      buffer.copyTo(copy);
      expect(copy[99]).toBe(7);
      using stream = Stream.create();
      buffer.close({ stream });
      mr.deallocate(entry.driver.memHostAlloc(10, 0), 10);
      mr.close();
      expect(() => mr.allocate(1)).toThrow(CudaStateError);
    });
  });
});

function deviceHostNuma(driver: Driver): number {
  return driver.deviceGetAttribute(134, 0);
}

describe('capabilities of older drivers', () => {
  it('PinnedMemoryResource needs host memory pools, NUMA placement needs NUMA locations', () => {
    const legacy = createReferenceDriver({ entryPoints: 'legacy' });
    const withoutHostPools = new Proxy(legacy, {
      get: (target, property, receiver) =>
        property === 'capabilities'
          ? { ...target.capabilities, hostMemoryPools: false }
          : Reflect.get(target, property, receiver),
    });
    const { driver, log } = countingDriver(withoutHostPools);
    useDriver(driver);
    expect(() => new PinnedMemoryResource()).toThrow(NotSupportedError);
    expect(() => new PinnedMemoryResource()).toThrow(/CUDA 13\.0/);
    expect(log.calls).toEqual([]);
    const numa = countingDriver(legacy);
    useDriver(numa.driver);
    expect(() => new PinnedMemoryResource({ numaId: 0 })).toThrow(NotSupportedError);
    expect(numa.log.calls.filter((call) => call.startsWith('memPool'))).toEqual([]);
    expect(() => new ManagedMemoryResource({ preferredLocation: new Host({ numaId: 0 }) })).toThrow(
      NotSupportedError,
    );
  });
});
