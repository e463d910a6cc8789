// Several GPUs: peer queries, pool peer access, copies between devices in every form, streams
// and events across devices, and the context every call on a device-1 object runs in. Runs on
// the reference driver with 2 devices here, and on the real adapters where there are 2 GPUs
// (skipped as "not applicable: needs 2 GPUs" elsewhere).
import { CudaStateError, Device, type Driver, NotSupportedError } from '@cumem/core-types';
import { download, expectBytes, skipWithoutPeerAccess } from '@cumem/test-support';
import { countingDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { DeviceMemoryResource } from './resources/device-memory-resource.js';
import { PinnedMemoryResource } from './resources/pinned-memory-resource.js';
import { deviceCount, setCurrentDevice } from './runtime/device-queries.js';
import { useDriver } from './runtime/driver-selection.js';
import { canAccessPeer, peerAttributes } from './runtime/peer-queries.js';
import { defaultStream, Stream } from './stream/stream.js';

const size = 4 << 20;

function randomBytes(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

describeEachDriverWithDevices(adapters, 2, 'Several GPUs', (entry) => {
  let mr0: DeviceMemoryResource;
  let mr1: DeviceMemoryResource;
  beforeAll(() => {
    useDriver(entry.driver);
    setCurrentDevice(0);
    mr0 = new DeviceMemoryResource(0, {});
    mr1 = new DeviceMemoryResource(1, {});
  });
  afterAll(() => {
    mr0.close();
    mr1.close();
  });

  describe('peer queries', () => {
    it('canAccessPeer and peerAttributes agree in both directions; a device is not its own peer', () => {
      for (const [a, b] of [
        [0, 1],
        [1, 0],
      ] as const) {
        const can = canAccessPeer(a, new Device(b));
        expect(typeof can).toBe('boolean');
        const link = peerAttributes(new Device(a), b);
        expect(link.accessSupported).toBe(can);
        expect(typeof link.nativeAtomicSupported).toBe('boolean');
        expect(typeof link.cudaArrayAccessSupported).toBe('boolean');
        expect(link.performanceRank).toBeGreaterThanOrEqual(0);
      }
      expect(canAccessPeer(1, 1)).toBe(false);
      expect(() => peerAttributes(1, 1)).toThrow(RangeError);
      // The first ordinal past the machine's devices, however many it has (issue 21: not 2).
      expect(() => canAccessPeer(0, deviceCount())).toThrow(RangeError);
      expect(() => canAccessPeer(0, '1' as unknown as number)).toThrow(TypeError);
    });
  });

  describe('DeviceMemoryResource.peerAccessibleBy', () => {
    it('is a live view that assignment changes by the difference only, in one driver call', (context) => {
      skipWithoutPeerAccess(canAccessPeer(1, 0), entry.name, context);
      const counted = countingDriver(entry.driver);
      useDriver(counted.driver);
      try {
        const mr = new DeviceMemoryResource(0, {});
        expect(mr.peerAccessibleBy.size).toBe(0);
        expect([...mr.peerAccessibleBy]).toEqual([]);
        counted.log.reset();
        mr.peerAccessibleBy = [1, new Device(1), 0];
        expect(counted.log.calls.filter((call) => call === 'memPoolSetAccessMany')).toHaveLength(1);
        expect(counted.log.calls).not.toContain('memPoolSetAccess');
        expect(mr.peerAccessibleBy.has(1)).toBe(true);
        expect(mr.peerAccessibleBy.has(new Device(1))).toBe(true);
        expect(mr.peerAccessibleBy.has(0)).toBe(false);
        expect([...mr.peerAccessibleBy]).toEqual([new Device(1)]);
        counted.log.reset();
        mr.peerAccessibleBy = [new Device(1)];
        expect(counted.log.calls).not.toContain('memPoolSetAccessMany');
        // Bad elements are refused before any change.
        counted.log.reset();
        expect(() => {
          mr.peerAccessibleBy = [0, 'one' as unknown as number];
        }).toThrow(TypeError);
        expect(() => {
          mr.peerAccessibleBy = [7];
        }).toThrow(RangeError);
        expect(() => {
          mr.peerAccessibleBy = 1 as unknown as number[];
        }).toThrow(TypeError);
        expect(counted.log.calls).not.toContain('memPoolSetAccessMany');
        expect(mr.peerAccessibleBy.has(1)).toBe(true);
        expect(mr.peerAccessibleBy.delete(1)).toBe(true);
        expect(mr.peerAccessibleBy.delete(1)).toBe(false);
        expect(mr.peerAccessibleBy.add(1).size).toBe(1);
        mr.peerAccessibleBy.clear();
        expect(mr.peerAccessibleBy.size).toBe(0);
        mr.close();
        expect(() => mr.peerAccessibleBy).toThrow(CudaStateError);
      } finally {
        useDriver(entry.driver);
      }
    });

    it("works on the device's current pool too, and reads access other code granted", (context) => {
      skipWithoutPeerAccess(canAccessPeer(0, 1), entry.name, context);
      const current = new DeviceMemoryResource(1);
      const before = [...current.peerAccessibleBy].map((device) => device.ordinal);
      try {
        current.peerAccessibleBy = [0];
        expect(new DeviceMemoryResource(1).peerAccessibleBy.has(0)).toBe(true);
      } finally {
        current.peerAccessibleBy = before;
      }
      expect([...current.peerAccessibleBy].map((device) => device.ordinal)).toEqual(before);
    });

    it('refuses a device that cannot access the owner, before any change', () => {
      // A driver whose devices report no peer access (as on GPUs without P2P), over the real one.
      const counted = countingDriver(entry.driver);
      const noPeers = new Proxy({} as Driver, {
        get(_target, property) {
          if (property === 'deviceCanAccessPeer') return () => false;
          const value = (counted.driver as unknown as Record<PropertyKey, unknown>)[property];
          return typeof value === 'function' ? value.bind(counted.driver) : value;
        },
      });
      useDriver(noPeers);
      try {
        const mr = new DeviceMemoryResource(0, {});
        counted.log.reset();
        expect(() => {
          mr.peerAccessibleBy = [1];
        }).toThrow(NotSupportedError);
        expect(() => mr.peerAccessibleBy.add(1)).toThrow(NotSupportedError);
        expect(counted.log.calls).not.toContain('memPoolSetAccessMany');
        expect(mr.peerAccessibleBy.size).toBe(0);
        mr.close();
      } finally {
        useDriver(entry.driver);
      }
    });
  });

  describe('Buffer copies between devices', () => {
    for (const access of ['without', 'with'] as const) {
      it(`copyFrom / copyTo both directions ${access} pool access, with and without streams`, async (context) => {
        if (access === 'with')
          skipWithoutPeerAccess(canAccessPeer(0, 1) && canAccessPeer(1, 0), entry.name, context);
        const a = new DeviceMemoryResource(0, {});
        const b = new DeviceMemoryResource(1, {});
        if (access === 'with') {
          a.peerAccessibleBy = [1];
          b.peerAccessibleBy = [0];
        }
        const data = randomBytes(size, access === 'with' ? 3 : 5);
        using b0 = a.allocate(size);
        using b1 = b.allocate(size);
        b0.copyFrom(data);
        b1.fill(0);
        b1.copyFrom(b0);
        expectBytes(download(b1), data);
        b0.fill(0);
        b1.copyTo(b0);
        expectBytes(download(b0), data);
        for (const on of [0, 1]) {
          using stream = Stream.create(on);
          const next = randomBytes(size, 11 + on);
          b0.copyFrom(next, { stream });
          b1.copyFrom(b0, { stream });
          b0.fill(0, { stream });
          b0.copyFrom(b1, { stream });
          await stream.syncAsync();
          expectBytes(download(b1), next);
          expectBytes(download(b0), next);
        }
        // Same-device buffers copied on the other device's stream.
        using c0 = a.allocate(size);
        defaultStream(0).sync(); // the allocation is ordered on device 0's default stream
        using stream1 = Stream.create(1);
        c0.copyFrom(b0, { stream: stream1 });
        stream1.sync();
        expectBytes(download(c0), download(b0));
        a.close();
        b.close();
      });
    }

    it('pinned memory to and from device-1 memory', () => {
      const pinned = new PinnedMemoryResource();
      const data = randomBytes(size, 17);
      using host = pinned.allocate(size);
      host.copyFrom(data);
      using b1 = mr1.allocate(size);
      b1.copyFrom(host);
      expectBytes(download(b1), data);
      host.fill(0);
      host.copyFrom(b1);
      expectBytes(download(host), data);
      pinned.close();
    });
  });

  describe('streams and events across devices', () => {
    it("a stream waits for another device's event, and each device has its own default stream", async () => {
      expect(defaultStream(1).device).toBe(new Device(1));
      expect(defaultStream(0)).not.toBe(defaultStream(1));
      using s0 = Stream.create(0);
      using s1 = Stream.create(1);
      const data = randomBytes(size, 23);
      using b0 = mr0.allocate(size, { stream: s0 });
      using b1 = mr1.allocate(size, { stream: s1 });
      b0.copyFrom(data, { stream: s0 });
      const done = s0.record();
      s1.wait(done);
      b1.copyFrom(b0, { stream: s1 });
      s0.wait(s1);
      b0.fill(0, { stream: s0 });
      await s0.syncAsync();
      expectBytes(download(b1), data);
      expect(download(b0).every((byte) => byte === 0)).toBe(true);
    });
  });

  describe('contexts', () => {
    it("every call on a device-1 object runs in device 1's context, whatever device is current", () => {
      const seen: { member: string; device: number }[] = [];
      const watched = new Set([
        'memAllocFromPoolAsync',
        'memFreeAsync',
        'memcpyAsync',
        'memcpyPeerAsync',
        'memcpyHtoDAsync',
        'memcpyDtoHAsync',
        'memsetD8Async',
        'streamCreate',
        'eventCreate',
        'memPoolCreate',
        'memPoolGetAccess',
        'memPoolSetAccessMany',
      ]);
      const inner = entry.driver;
      const spy = new Proxy({} as Driver, {
        get(_target, property) {
          const value = (inner as unknown as Record<PropertyKey, unknown>)[property];
          if (typeof value !== 'function') return value;
          const bound = (value as (...args: unknown[]) => unknown).bind(inner);
          if (typeof property !== 'string' || !watched.has(property)) return bound;
          return (...args: unknown[]) => {
            seen.push({ member: property, device: inner.contextGetDevice() });
            return bound(...args);
          };
        },
      });
      useDriver(spy);
      try {
        setCurrentDevice(0);
        const mr = new DeviceMemoryResource(1, {});
        setCurrentDevice(0);
        const buffer = mr.allocate(4096);
        setCurrentDevice(0);
        buffer.fill(0x5a);
        setCurrentDevice(0);
        const bytes = new Uint8Array(4096);
        buffer.copyTo(bytes);
        expect(bytes.every((byte) => byte === 0x5a)).toBe(true);
        setCurrentDevice(0);
        const stream = Stream.create(1);
        setCurrentDevice(0);
        stream.record();
        setCurrentDevice(0);
        void mr.peerAccessibleBy.size;
        setCurrentDevice(0);
        buffer.close();
        stream.close();
        mr.close();
        expect(seen.length).toBeGreaterThan(5);
        expect(seen.filter(({ device }) => device !== 1)).toEqual([]);
      } finally {
        useDriver(entry.driver);
        setCurrentDevice(0);
      }
    });
  });
});
