// bufferReachableOn: what @cumem/utils asks before batching copies between devices. The pool an
// allocation comes from is asked of the driver once per allocation; the pool's access, which
// can change at any time, on every call. Reference driver with 2 devices here, the real
// adapters where there are 2 GPUs.
import { CudaStateError } from '@cumem/core-types';
import { skipWithoutPeerAccess, withCountingDriver } from '@cumem/test-support';
import { createReferenceDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { bufferReachableOn } from '../buffer/buffer-peer-copy.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { canAccessPeer } from '../runtime/peer-queries.js';
import { Stream } from '../stream/stream.js';

describeEachDriverWithDevices(adapters, 2, 'bufferReachableOn', (entry) => {
  it("follows the pool's access on every call and asks which pool an allocation is from once", (context) =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr0 = new DeviceMemoryResource(0, {});
      const mr1 = new DeviceMemoryResource(1, {});
      try {
        skipWithoutPeerAccess(canAccessPeer(0, 1), entry.name, context);
        using stream = Stream.create(0);
        using remote = mr1.allocate(8192);
        using own = mr0.allocate(8192);
        const halves = [remote.slice(0, 4096), remote.slice(4096, 4096)];
        log.reset();
        expect(bufferReachableOn(stream, own, true)).toBe(true);
        expect(log.calls).toEqual([]);
        expect(bufferReachableOn(stream, halves[0]!, false)).toBe(false);
        expect(log.calls).toEqual(['pointerGetHandleAttribute', 'memPoolGetAccess']);
        mr1.peerAccessibleBy = [0];
        log.reset();
        expect(bufferReachableOn(stream, halves[1]!, true)).toBe(true);
        expect(bufferReachableOn(stream, remote, false)).toBe(true);
        expect(log.calls).toEqual(['memPoolGetAccess', 'memPoolGetAccess']);
        mr1.peerAccessibleBy = [];
        log.reset();
        expect(bufferReachableOn(stream, halves[0]!, false)).toBe(false);
        expect(log.calls).toEqual(['memPoolGetAccess']);
        // Page-locked host memory: every device reaches it, nothing to ask.
        using pinned = new PinnedMemoryResource().allocate(4096);
        log.reset();
        expect(bufferReachableOn(stream, pinned, true)).toBe(true);
        expect(log.calls).toEqual([]);
      } finally {
        mr0.close();
        mr1.close();
      }
    }));

  it('refuses what is not a Stream and a Buffer of one driver, before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      using stream = Stream.create(0);
      using buffer = new DeviceMemoryResource(1).allocate(64);
      useDriver(createReferenceDriver({ deviceCount: 2 }));
      using foreign = new DeviceMemoryResource(1).allocate(64);
      log.reset();
      expect(() => bufferReachableOn(stream, { pointer: buffer.handle } as never, false)).toThrow(TypeError);
      expect(() => bufferReachableOn({} as never, buffer, false)).toThrow(TypeError);
      expect(() => bufferReachableOn(stream, foreign, false)).toThrow(CudaStateError);
      expect(log.calls).toEqual([]);
    }));
});
