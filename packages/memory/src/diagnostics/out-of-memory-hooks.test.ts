// Out-of-memory hooks that change what the allocation depends on: a hook that closes its
// resource (freeing the last buffers, which destroys the pool) or the allocation's stream and
// asks for a retry gets a CudaStateError, and the retry never reaches the driver. Every driver
// (on a GPU the same: a limit makes the out-of-memory, not the device).
import { CudaStateError, Device } from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterEach, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import type { Buffer } from '../buffer/buffer.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from '../stream/stream.js';
import { onOutOfMemory } from './out-of-memory.js';

describeEachDriver(adapters, 'out-of-memory hooks that close what the allocation uses', (entry) => {
  const unhooks: (() => void)[] = [];
  afterEach(() => {
    for (const unhook of unhooks.splice(0)) unhook();
  });

  it('a hook that closes its resource and frees its last buffers (the pool is destroyed) gets no retry', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new DeviceMemoryResource(0, {});
      mr.limit = 8192;
      const held: Buffer[] = [mr.allocate(4096), mr.allocate(4096)];
      let calls = 0;
      let afterHook = -1;
      unhooks.push(
        onOutOfMemory(
          () => {
            calls++;
            mr.close();
            for (const buffer of held) buffer.close();
            afterHook = log.calls.length;
            return true;
          },
          { resource: mr },
        ),
      );
      log.reset();
      expect(() => mr.allocate(4096)).toThrow(CudaStateError);
      expect(calls).toBe(1);
      expect(log.calls.slice(afterHook)).not.toContain('memAllocFromPoolAsync');
      expect(log.calls).toContain('memPoolDestroy');
      expect(() => mr.allocate(4096)).toThrow(CudaStateError);
    }));

  it('a hook that closes the stream the allocation is ordered on gets no retry on it', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      using mr = new DeviceMemoryResource(0, {});
      mr.limit = 4096;
      const stream = Stream.create(0);
      using held = mr.allocate(4096, { stream });
      let afterHook = -1;
      unhooks.push(
        onOutOfMemory(
          () => {
            stream.close();
            afterHook = log.calls.length;
            return true;
          },
          { device: 0 },
        ),
      );
      log.reset();
      expect(() => mr.allocate(4096, { stream })).toThrow(CudaStateError);
      expect(log.calls.slice(afterHook)).not.toContain('memAllocFromPoolAsync');
      expect(held.isClosed).toBe(false);
    }));

  it('a hook that closes a managed resource gets a CudaStateError, not an allocation', () => {
    useDriver(entry.driver);
    const mr = new ManagedMemoryResource();
    mr.limit = 4096;
    using held = mr.allocate(4096);
    unhooks.push(
      onOutOfMemory(
        () => {
          mr.close();
          return true;
        },
        { resource: mr },
      ),
    );
    expect(() => mr.allocate(4096)).toThrow(/closed by an out-of-memory hook/);
    expect(held.size).toBe(4096);
  });

  it('refuses a device that does not exist, before registering the hook', () => {
    useDriver(entry.driver);
    const count = entry.driver.deviceGetCount();
    for (const device of [-1, count, 4096, 2 ** 31, 2 ** 53, new Device(count)]) {
      expect(() => onOutOfMemory(() => true, { device })).toThrow(RangeError);
    }
    expect(() => onOutOfMemory(() => true, { device: '0' as never })).toThrow(TypeError);
    expect(() => onOutOfMemory(() => true, { device: 0.5 })).toThrow(RangeError);
    unhooks.push(onOutOfMemory(() => false, { device: count - 1 }));
  });
});
