import { CudaStateError, Device } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Event } from './event.js';
import { defaultStream, Stream } from './stream.js';

describeEachDriver(adapters, 'Stream and Event', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('Stream', () => {
    it('holdHostMemory keeps JS memory referenced until the stream has passed it', async () => {
      const collect = (globalThis as { gc?: () => void }).gc;
      if (!collect) throw new Error('run with --expose-gc (see vitest.config.ts)');
      const settle = async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        collect();
      };
      // Held until a synchronization (held-host-memory.test.ts covers the grouping).
      const stream = Stream.create();
      const other = Stream.create();
      const refs: WeakRef<object>[] = [];
      (() => {
        const view = new Uint8Array(1 << 16);
        const plain = new ArrayBuffer(1 << 16);
        refs.push(new WeakRef(view), new WeakRef(plain));
        stream.holdHostMemory(view);
        other.holdHostMemory(plain);
      })();
      await settle();
      await settle();
      expect(refs.every((ref) => ref.deref() !== undefined)).toBe(true);
      stream.sync();
      await other.syncAsync();
      for (let round = 0; round < 20 && refs.some((ref) => ref.deref() !== undefined); round++)
        await settle();
      expect(refs.every((ref) => ref.deref() === undefined)).toBe(true);
      other.close();
      expect(() => stream.holdHostMemory([1, 2] as never)).toThrow(TypeError);
      expect(() => stream.holdHostMemory(undefined as never)).toThrow(TypeError);
      stream.close();
      expect(() => stream.holdHostMemory(new Uint8Array(1))).toThrow(CudaStateError);
    });

    it('creates a stream on a device, with a handle, and syncs it', async () => {
      const stream = Stream.create(new Device(0), { nonBlocking: true, priority: 0 });
      expect(stream.device).toBe(new Device(0));
      expect(typeof stream.handle).toBe('bigint');
      expect(stream.handle).not.toBe(0n);
      stream.sync();
      await stream.syncAsync();
      stream.close();
      stream.close();
      expect(stream.isClosed).toBe(true);
      expect(() => stream.handle).toThrow(CudaStateError);
      expect(() => stream.sync()).toThrow(/Stream is closed/);
      await expect(stream.syncAsync()).rejects.toThrow(CudaStateError);
    });

    it('takes a priority in the device range and refuses one outside it', () => {
      using low = Stream.create(0, { priority: 0 });
      using blocking = Stream.create(undefined, { nonBlocking: false });
      expect(low.device).toBe(new Device(0));
      expect(blocking.device).toBe(new Device(0));
      expect(() => Stream.create(0, { priority: 1_000_000 })).toThrow(RangeError);
      expect(() => Stream.create(0, { priority: 0.5 })).toThrow(TypeError);
      expect(() => Stream.create(0, { nonBlocking: 1 as never })).toThrow(TypeError);
    });

    it('records events and waits on events and streams', () => {
      using first = Stream.create();
      using second = Stream.create();
      const event = first.record();
      expect(event).toBeInstanceOf(Event);
      second.wait(event);
      second.wait(first);
      second.wait(second);
      const again = first.record(event);
      expect(again).toBe(event);
      // Recorded again after second's waits: second passes it only once it waits on it too (a
      // GPU run caught the event not done after second.sync() alone).
      second.wait(again);
      second.sync();
      expect(event.isDone).toBe(true);
      event.close();
      expect(() => first.record(event)).toThrow(CudaStateError);
      expect(() => second.wait(event)).toThrow(CudaStateError);
      expect(() => second.wait(42 as never)).toThrow(TypeError);
      expect(() => first.record({} as never)).toThrow(TypeError);
    });

    it('has one default stream per device that close() leaves open', () => {
      const stream = defaultStream();
      expect(defaultStream(0)).toBe(stream);
      expect(defaultStream(new Device(0))).toBe(stream);
      stream.close();
      expect(stream.isClosed).toBe(false);
      stream.sync();
    });

    it('keeps JS memory of an asynchronous copy until the stream has passed it', async () => {
      const pool = new DeviceMemoryResource(0);
      using stream = Stream.create();
      using buffer = pool.allocate(1 << 16, { stream });
      const data = new Uint8Array(1 << 16).fill(9);
      buffer.copyFrom(data, { stream });
      const back = new Uint8Array(1 << 16);
      buffer.copyTo(back, { stream });
      await stream.syncAsync();
      expect(back[100]).toBe(9);
    });
  });

  describe('Event', () => {
    it('times work between two events', async () => {
      using stream = Stream.create();
      const start = stream.record();
      const end = stream.record(Event.create());
      end.sync();
      await end.syncAsync();
      expect(end.isDone).toBe(true);
      const elapsed = start.elapsedMs(end);
      expect(typeof elapsed).toBe('number');
      expect(elapsed).toBeGreaterThanOrEqual(0);
      expect(() => start.elapsedMs({} as never)).toThrow(TypeError);
      expect(start.device).toBe(new Device(0));
      start.close();
      end.close();
    });

    it('refuses timing without timing enabled (before the driver) and use after close', () => {
      using stream = Stream.create();
      const untimed = stream.record(Event.create(0, { enableTiming: false }));
      const timed = stream.record();
      stream.sync();
      expect(() => untimed.elapsedMs(timed)).toThrow(/this event records no timestamps/);
      untimed.close();
      untimed.close();
      expect(untimed.isClosed).toBe(true);
      expect(() => untimed.isDone).toThrow(/Event is closed/);
      expect(() => untimed.sync()).toThrow(CudaStateError);
      expect(() => timed.elapsedMs(untimed)).toThrow(CudaStateError);
      expect(() => Event.create(0, { blockingSync: 'yes' as never })).toThrow(TypeError);
      timed.close();
    });

    it('works with using', () => {
      let handle = 0n;
      {
        using event = Event.create();
        handle = event.handle;
      }
      expect(handle).not.toBe(0n);
    });
  });
});
