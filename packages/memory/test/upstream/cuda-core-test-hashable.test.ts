/**
 * cuda.core's hashing tests, translated into checks that Device, Stream and Event of
 * `@cumem/memory` are usable keys.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_hashable.py`, as read at commit
 * 01db773955806205e65e0553c8d22192419cc440. Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here: `hash()` and dict keys -> `Map` keys, which are compared by
 * identity (cumem has no value equality; the same driver object is handed out as the same JS
 * object where cumem hands it out twice, as the interned Device). A JS Map has no hash to collide,
 * so "no collision between types" becomes "every object is its own entry".
 *
 * Partly ported:
 * - test_hash_type_disambiguation_and_mixed_dict: without the Context (cumem has none).
 * - test_event_subclass_hash: two events made the same way; Event's constructor is private (a
 *   subclass's `super()` throws), so there is no subclass instance to make.
 *
 * Not ported:
 * - test_stream_subclass_hash, test_hash_equality_contract_maintained: they wrap one CUstream twice
 *   with `Stream.from_handle` (planned for 0.4, API.md) and subclass Stream through cuda.core's
 *   private `_init` (cumem's constructor is private); the Context half of the latter has no object.
 * - test_context_subclass_hash: cumem has no Context object.
 */
import { Device, Event, Stream, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { needsPools } from './upstream-gates.js';

describeEachDriver(
  adapters,
  'cuda.core test_hashable.py',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_hash_type_disambiguation_and_mixed_dict: a device, a stream and its recorded event are three entries of one Map', () => {
      const device = new Device(0);
      using stream = Stream.create(device);
      using event = stream.record();
      const cache = new Map<object, string>([
        [stream, 'stream_data'],
        [event, 'event_data'],
        [device, 'device_data'],
      ]);
      expect(cache.size).toBe(3);
      expect(cache.get(stream)).toBe('stream_data');
      expect(cache.get(event)).toBe('event_data');
      expect(cache.get(device)).toBe('device_data');
      // The device reached through the stream and the event is the same key.
      expect(cache.get(stream.device)).toBe('device_data');
      expect(cache.get(event.device)).toBe('device_data');
    });

    it('test_device_subclass_hash: new MyDevice(0) is the interned Device(0), the same key', () => {
      class MyDevice extends Device {}
      const device = new Device(0);
      const myDevice = new MyDevice(0);
      expect(myDevice).toBe(device);
      expect(Object.getPrototypeOf(myDevice)).toBe(Device.prototype);
      const table = new Map([[device, 'value']]);
      expect(table.get(myDevice)).toBe('value');
      expect(table.get(new Device(0))).toBe('value');
    });

    it('test_event_subclass_hash: two events have different handles and are two keys (no subclass: Event’s constructor is private)', () => {
      using event = Event.create(0);
      using other = Event.create(0);
      expect(event.handle).not.toBe(other.handle);
      const cache = new Map([
        [event, 'base'],
        [other, 'other'],
      ]);
      expect(cache.size).toBe(2);
      expect(cache.get(event)).toBe('base');
      expect(cache.get(other)).toBe('other');
      const construct = Event as unknown as new () => Event;
      expect(() => new construct()).toThrow(/^Event has no public constructor/);
    });
  },
  { requires: needsPools },
);
