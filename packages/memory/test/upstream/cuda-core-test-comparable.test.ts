/**
 * cuda.core's equality tests, translated into what equality is in `@cumem/memory`: identity, with
 * one object per driver object where cumem hands it out twice.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_comparable.py`, as read at commit
 * 01db773955806205e65e0553c8d22192419cc440. Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here: `==` / `!=` -> `===` / `!==` (JS has no operator overloading,
 * and cumem adds no `equals`). cuda.core's point in test_equality_is_not_identity (two wrappers of
 * one stream are equal) is therefore a deliberate difference: cumem makes one object per stream it
 * creates, and the same Device object for the same ordinal.
 *
 * Partly ported:
 * - test_equality_is_not_identity: the Device half; the Stream half needs `Stream.fromHandle`
 *   (planned for 0.4, API.md).
 * - test_event_subclass_equality: two events, and a third; Event's constructor is private (a
 *   subclass's `super()` throws), so there is no subclass instance to make.
 *
 * Not ported:
 * - test_stream_subclass_equality: `Stream.from_handle` (planned for 0.4) and subclass instances
 *   through cuda.core's private `_init` (cumem's Stream constructor is private).
 * - test_context_subclass_equality: cumem has no Context object.
 * - test_subclass_type_safety: distinct objects are never `===` to each other or to a string,
 *   number, array or plain object; a guarantee of the language, a case could not fail.
 */
import { Device, Event, Stream, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { needsPools } from './upstream-gates.js';

describeEachDriver(
  adapters,
  'cuda.core test_comparable.py',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_equality_is_not_identity: cumem differs — equality is identity, and Device(0) is one interned object', () => {
      const d1 = new Device(0);
      const d2 = new Device(0);
      expect(d1).toBe(d2);
      expect(d1.ordinal).toBe(d2.ordinal);
      // Every way to reach device 0 gives that object.
      using stream = Stream.create(0);
      expect(stream.device).toBe(d1);
    });

    it('test_device_subclass_equality: new MyDevice(0) returns the interned Device(0), a Device not a MyDevice', () => {
      class MyDevice extends Device {}
      const device = new Device(0);
      const myDevice = new MyDevice(0);
      expect(myDevice).toBe(device);
      expect(Object.getPrototypeOf(device)).toBe(Device.prototype);
      expect(myDevice instanceof MyDevice).toBe(false);
    });

    it('test_event_subclass_equality: different events are different objects with different handles', () => {
      using event = Event.create(0);
      using second = Event.create(0);
      using third = Event.create(0);
      expect(event).not.toBe(second);
      expect(second).not.toBe(third);
      expect(new Set([event.handle, second.handle, third.handle]).size).toBe(3);
    });
  },
  { requires: needsPools },
);
