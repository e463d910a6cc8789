/**
 * cuda.core's stream tests, translated case by case into an acceptance suite for
 * `Stream` / `defaultStream` of `@cumem/memory`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_stream.py`, as read at commit
 * 04586be0537f5b651c895328c29edea949b8aef8. Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here:
 * - `Device().create_stream(options=StreamOptions(...))` -> `Stream.create(device, { ... })`.
 * - `==` / `hash()` / dict and set keys -> identity (`===`), `Map` and `Set`, which key by identity:
 *   one object per CUstream is what makes a stream a usable key. Where upstream gets a second
 *   object for the same handle with `Stream.from_handle`, the cases here use `defaultStream()`,
 *   the one way cumem hands out the same stream twice.
 * - cuda.core's `RuntimeError` / `ValueError` for misuse -> `TypeError` (wrong kind of value) and
 *   `RangeError` (value out of range), as API.md says.
 *
 * Partly ported (the part cumem has is tested; the rest is not there):
 * - test_stream_context: cumem has no Context object; the case checks the context a stream is
 *   made in (the device's primary context) through `currentDriver()`.
 *
 * Not ported:
 * - test_stream_from_foreign_stream, test_stream_from_handle, test_stream_equality_same_handle,
 *   test_stream_equality_symmetric, test_stream_hash_equality_same_handle: `Stream.fromHandle` and
 *   objects with a `cudaStream` member are planned for 0.4 (API.md) and not built yet.
 * - test_builtin_stream_hash: cumem has no legacy / per-thread stream objects, by design (API.md:
 *   work without a stream goes to a real non-blocking stream, never the legacy NULL stream).
 * - test_stream_subclassing, test_stream_legacy_default_subclassing,
 *   test_stream_per_thread_default_subclassing: Python subclasses built through cuda.core's private
 *   factories (`_init`, `_legacy_default`, `_per_thread_default`); cumem's Stream constructor is
 *   private (a subclass's `super()` throws the TypeError of test_stream_init_disabled), so there
 *   are no subclass instances to check.
 * - test_stream_equality_reflexive: `===` is reflexive by the language; a case could not fail.
 */
import { currentDriver, Device, defaultStream, Event, Stream, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters.js';

/** CUstream values the driver reserves: the legacy NULL stream, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD. */
const nullStream = 0n;
const legacyStream = 1n;
const perThreadStream = 2n;

describeEachDriver(adapters, 'cuda.core test_stream.py', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('creation and options', () => {
    it('test_stream_init_disabled: Stream has no public constructor (a TypeError, cumem’s error for misuse)', () => {
      const construct = Stream as unknown as new () => Stream;
      expect(() => new construct()).toThrow(TypeError);
      expect(() => new construct()).toThrow(/^Stream has no public constructor/);
    });

    it('test_stream_init_with_options: nonBlocking and priority 0 are taken', () => {
      using stream = Stream.create(new Device(0), { nonBlocking: true, priority: 0 });
      expect(stream.device).toBe(new Device(0));
      expect(stream.isNonBlocking).toBe(true);
      expect(stream.priority).toBe(0);
      expect(stream.isClosed).toBe(false);
      stream.sync();
    });

    it('test_stream_handle: the handle is a bigint CUstream, not a reserved one', () => {
      using stream = Stream.create();
      expect(typeof stream.handle).toBe('bigint');
      expect([nullStream, legacyStream, perThreadStream]).not.toContain(stream.handle);
    });

    it('test_stream_is_nonblocking: a non-blocking stream (the default) and a blocking one both work', () => {
      using nonBlocking = Stream.create(undefined, { nonBlocking: true });
      using blocking = Stream.create(undefined, { nonBlocking: false });
      expect(nonBlocking.handle).not.toBe(blocking.handle);
      expect(nonBlocking.isNonBlocking).toBe(true);
      expect(blocking.isNonBlocking).toBe(false);
      using plain = Stream.create();
      expect(plain.isNonBlocking).toBe(true);
      expect(defaultStream().isNonBlocking).toBe(true);
      nonBlocking.sync();
      blocking.sync();
      expect(() => Stream.create(undefined, { nonBlocking: 1 as never })).toThrow(TypeError);
    });

    it('test_stream_priority: 0 and -1 are taken, 1 (below the least priority) is a RangeError', () => {
      using lowest = Stream.create(new Device(0), { priority: 0 });
      using higher = Stream.create(new Device(0), { priority: -1 });
      expect(lowest.handle).not.toBe(higher.handle);
      expect(lowest.priority).toBe(0);
      expect(higher.priority).toBe(-1);
      expect(defaultStream().priority).toBe(0);
      // cuda.core raises ValueError; cumem's RangeError is its error for a value out of range.
      expect(() => Stream.create(new Device(0), { priority: 1 })).toThrow(RangeError);
      expect(() => Stream.create(new Device(0), { priority: 1 })).toThrow(/outside device 0's range/);
    });
  });

  describe('work and ordering', () => {
    it('test_stream_sync: sync returns once the queued work is done', () => {
      using stream = Stream.create();
      const marker = stream.record();
      stream.sync();
      expect(marker.isDone).toBe(true);
      marker.close();
    });

    it('test_stream_record: record() returns an Event', () => {
      using stream = Stream.create();
      using event = stream.record();
      expect(Event.isEvent(event)).toBe(true);
      expect(event).toBeInstanceOf(Event);
    });

    it('test_stream_wait_event: one stream waits on an event of another', () => {
      using first = Stream.create();
      using second = Stream.create();
      using produced = first.record();
      second.wait(produced);
      using after = second.record();
      second.sync();
      expect(after.isDone).toBe(true);
      expect(produced.isDone).toBe(true);
    });

    it('test_stream_wait_invalid_event: a string is refused with a TypeError', () => {
      using stream = Stream.create();
      // cuda.core raises ValueError; API.md makes a wrong kind of argument a TypeError.
      expect(() => stream.wait('invalid_event' as never)).toThrow(TypeError);
      expect(() => stream.wait('invalid_event' as never)).toThrow(/wait\(\) takes an Event or a Stream/);
    });
  });

  describe('where a stream runs', () => {
    it('test_stream_device: stream.device is a Device (the one it was made on)', () => {
      using stream = Stream.create(new Device(0));
      expect(Device.isInstance(stream.device)).toBe(true);
      expect(stream.device).toBeInstanceOf(Device);
      expect(stream.device).toBe(new Device(0));
    });

    it('test_stream_context: the stream is made in its device’s primary context (cumem has no Context object)', () => {
      using stream = Stream.create(new Device(0));
      const driver = currentDriver();
      const context = driver.contextGetCurrent();
      expect(context).not.toBe(0n);
      expect(driver.contextGetDevice()).toBe(stream.device.ordinal);
      const primary = driver.primaryContextRetain(0);
      try {
        expect(context).toBe(primary);
      } finally {
        driver.primaryContextRelease(0);
      }
    });
  });

  describe('default streams (cumem’s documented deviation: never a builtin stream)', () => {
    it('test_legacy_default_stream: defaultStream() is a Stream, never the legacy NULL stream', () => {
      const stream = defaultStream();
      expect(Stream.isStream(stream)).toBe(true);
      expect(stream.handle).not.toBe(nullStream);
      expect(stream.handle).not.toBe(legacyStream);
    });

    it('test_per_thread_default_stream: defaultStream() is a Stream per device, not CU_STREAM_PER_THREAD', () => {
      const stream = defaultStream(new Device(0));
      expect(Stream.isStream(stream)).toBe(true);
      expect(stream.handle).not.toBe(perThreadStream);
      // Its close() leaves it open: it is shared by every call that gets no stream.
      stream.close();
      expect(stream.isClosed).toBe(false);
      stream.sync();
    });

    it('test_default_stream_consistency: defaultStream() is the same object at every call', () => {
      const first = defaultStream();
      const second = defaultStream();
      expect(first).toBe(second);
      expect(defaultStream(0)).toBe(first);
      expect(defaultStream(new Device(0))).toBe(first);
      expect(first.handle).toBe(second.handle);
    });
  });

  describe('equality and keys', () => {
    it('test_stream_inequality_different_handles: two created streams are different objects and handles', () => {
      using first = Stream.create();
      using second = Stream.create();
      expect(first).not.toBe(second);
      expect(first.handle).not.toBe(second.handle);
    });

    it('test_stream_type_safety: values of other kinds are not streams, and comparing never throws', () => {
      using stream = Stream.create();
      for (const other of ['not a stream', 123, null, undefined, new Device(0)]) {
        expect(Stream.isStream(other)).toBe(false);
        expect(Object.is(stream, other)).toBe(false);
      }
      // An object inheriting from a stream is not one either (`instanceof` would say it is).
      expect(Stream.isStream(Object.create(stream))).toBe(false);
      expect(Stream.isStream(stream)).toBe(true);
    });

    it('test_stream_not_equal_operator: different streams differ, the same stream reached twice is equal', () => {
      using first = Stream.create();
      using second = Stream.create();
      expect(first !== second).toBe(true);
      // Upstream reaches s1 again through Stream.from_handle (not built yet): defaultStream does it here.
      const shared = defaultStream(0);
      expect(shared === defaultStream(new Device(0))).toBe(true);
      expect(shared !== first && shared !== second).toBe(true);
    });

    it('test_stream_hash_consistency: a stream keeps its handle and finds its own Map entry', () => {
      using stream = Stream.create();
      const handle = stream.handle;
      const cache = new Map<Stream, string>([[stream, 'value']]);
      stream.sync();
      expect(stream.handle).toBe(handle);
      expect(cache.get(stream)).toBe('value');
      // The handle cannot be rewritten (what the stream is, is frozen).
      expect(() => {
        (stream as { handle: bigint }).handle = handle + 1n;
      }).toThrow(TypeError);
      expect(stream.handle).toBe(handle);
    });

    it('test_stream_hash_inequality_different_handles: different streams are different keys', () => {
      using first = Stream.create();
      using second = Stream.create();
      expect(new Set([first, second]).size).toBe(2);
      expect(new Set([first.handle, second.handle]).size).toBe(2);
    });

    it('test_stream_dict_key: the same stream reached twice finds and updates one Map entry', () => {
      const cache = new Map<Stream, string>([[defaultStream(), 'value1']]);
      const again = defaultStream(new Device(0));
      expect(cache.has(again)).toBe(true);
      expect(cache.get(again)).toBe('value1');
      cache.set(again, 'value2');
      expect(cache.size).toBe(1);
      expect(cache.get(defaultStream())).toBe('value2');
    });

    it('test_stream_set_membership: the same stream is one Set member, another stream a second', () => {
      const shared = defaultStream();
      const members = new Set<Stream>([shared]);
      const again = defaultStream(0);
      expect(members.has(again)).toBe(true);
      members.add(again);
      expect(members.size).toBe(1);
      using other = Stream.create();
      members.add(other);
      expect(members.size).toBe(2);
    });
  });
});
