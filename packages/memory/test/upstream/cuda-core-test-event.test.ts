/**
 * cuda.core's event tests, translated case by case into an acceptance suite for `Event` (and
 * `stream.record`) of `@cumem/memory`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_event.py`, as read at commit
 * 2eebbca5ab5fe82e521de2b8c863404381ac402d. Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here:
 * - `stream.record(options=EventOptions(...))` -> `stream.record(Event.create(device, { ... }))`;
 *   `device.create_event()` -> `Event.create(device)`; `busy_waited_sync` (blocking
 *   synchronization, `CU_EVENT_BLOCKING_SYNC`) -> `blockingSync`.
 * - `later - earlier` -> `earlier.elapsedMs(later)`. Where cuda.core turns the driver's refusal into
 *   a RuntimeError of its own wording, cumem refuses what the events themselves know (timing
 *   disabled, never recorded) with a `CudaStateError` before the driver call, and throws what only
 *   the driver knows (still pending) as a `CudaError` naming `cuEventElapsedTime` and the code.
 * - `is_timing_disabled` -> `isTimingDisabled`; `is_sync_busy_waited` -> `isBlockingSync`.
 * - `==` / `hash()` / dict and set keys -> identity, `Map` and `Set`.
 *
 * Partly ported (the part cumem has is tested; the rest is not there):
 * - test_event_context: cumem has no Context object; the case checks the context the event is
 *   made in (the device's primary context) through `currentDriver()`.
 * - test_error_timing_incomplete: upstream holds the stream with a kernel spinning on a host flag
 *   (kernels live in `@cumem/compute`, above this package); here a long queue of device copies
 *   keeps the later event incomplete. GPU only: the reference driver runs each copy when queued.
 *
 * Not ported:
 * - test_event_subclassing: a Python subclass built through cuda.core's private `_init`; cumem's
 *   Event constructor is private (a subclass's `super()` throws the TypeError of
 *   test_event_init_disabled), so there are no subclass instances to check.
 * - test_event_equality_reflexive: `===` is reflexive by the language; a case could not fail.
 */
import {
  CudaError,
  CudaStateError,
  currentDriver,
  Device,
  DeviceMemoryResource,
  Event,
  Stream,
  useDriver,
} from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters.js';

/** Blocks the thread, as Python's `time.sleep` does, so nothing else runs between the two records. */
function sleepBlocking(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** Runs `call` and returns the CudaError it throws (failing when it throws nothing or something else). */
function cudaErrorOf(call: () => unknown): CudaError {
  try {
    call();
  } catch (error) {
    expect(CudaError.isInstance(error)).toBe(true);
    return error as CudaError;
  }
  throw new Error('expected a CudaError, but the call returned');
}

describeEachDriver(adapters, 'cuda.core test_event.py', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('creation', () => {
    it('test_event_init_disabled: Event has no public constructor (a TypeError, cumem’s error for misuse)', () => {
      const construct = Event as unknown as new () => Event;
      expect(() => new construct()).toThrow(TypeError);
      expect(() => new construct()).toThrow(/^Event has no public constructor/);
    });

    it('test_event_device: event.device is the device it was created on', () => {
      const device = new Device(0);
      using event = Event.create(device);
      expect(event.device).toBe(device);
    });

    it('test_event_context: the event is made in its device’s primary context (cumem has no Context object)', () => {
      using event = Event.create(new Device(0));
      const driver = currentDriver();
      const context = driver.contextGetCurrent();
      expect(context).not.toBe(0n);
      expect(driver.contextGetDevice()).toBe(event.device.ordinal);
      const primary = driver.primaryContextRetain(0);
      try {
        expect(context).toBe(primary);
      } finally {
        driver.primaryContextRelease(0);
      }
    });
  });

  describe('timing', () => {
    it('test_timing_success: elapsedMs measures a host sleep between two records', () => {
      const delay = 500;
      // Slack for timer resolution and scheduling, as upstream allows.
      const tolerance = 20;
      using stream = Stream.create();
      using first = stream.record(Event.create(undefined, { enableTiming: true }));
      const start = performance.now();
      sleepBlocking(delay);
      using second = stream.record(Event.create(undefined, { enableTiming: true }));
      const hostInterval = performance.now() - start;
      second.sync();
      const elapsed = first.elapsedMs(second);
      expect(typeof elapsed).toBe('number');
      expect(elapsed).toBeGreaterThanOrEqual(delay - tolerance);
      // A loaded machine can stretch the sleep itself: bound by what the host saw, not by `delay`.
      expect(elapsed).toBeLessThan(Math.max(delay, hostInterval) + tolerance);
    });

    it('test_error_timing_disabled: an event without timing says so, and elapsedMs refuses it before the driver', () => {
      using stream = Stream.create();
      using timed = stream.record(Event.create(undefined, { enableTiming: true }));
      using untimed = stream.record(Event.create(undefined, { enableTiming: false }));
      stream.sync();
      expect(timed.isDone && untimed.isDone).toBe(true);
      expect(timed.isTimingDisabled).toBe(false);
      expect(untimed.isTimingDisabled).toBe(true);
      expect(() => timed.elapsedMs(untimed)).toThrow(CudaStateError);
      expect(() => timed.elapsedMs(untimed)).toThrow(/later records no timestamps/);
      expect(() => untimed.elapsedMs(timed)).toThrow(/this event records no timestamps/);

      using untimedFirst = stream.record(Event.create(undefined, { enableTiming: false }));
      using untimedSecond = stream.record(Event.create(undefined, { enableTiming: false }));
      stream.sync();
      expect(() => untimedFirst.elapsedMs(untimedSecond)).toThrow(CudaStateError);
      // An interprocess event never times.
      using shared = Event.create(undefined, { interprocess: true });
      expect(shared.isTimingDisabled).toBe(true);
    });

    it('test_error_timing_recorded: elapsedMs with an event never recorded is refused before the driver, either way round', () => {
      const device = new Device(0);
      using stream = Stream.create(device);
      using recorded = stream.record(Event.create(device, { enableTiming: true }));
      using neverRecorded = Event.create(device, { enableTiming: true });
      using alsoNeverRecorded = Event.create(device, { enableTiming: true });
      stream.sync();
      // cuda.h: cuEventElapsedTime refuses an event that was never recorded; the event knows.
      for (const [earlier, later] of [
        [recorded, neverRecorded],
        [neverRecorded, recorded],
        [neverRecorded, alsoNeverRecorded],
      ] as const) {
        expect(() => earlier.elapsedMs(later)).toThrow(CudaStateError);
        expect(() => earlier.elapsedMs(later)).toThrow(/was never recorded/);
      }
    });

    it.runIf(!entry.isReference)(
      `test_error_timing_incomplete: elapsedMs before the later event completes is CUDA_ERROR_NOT_READY, after its sync a number${
        entry.isReference
          ? ' — skipped: not applicable: the reference driver runs each copy when it is queued'
          : ''
      }`,
      () => {
        const size = 512 * 1024 * 1024;
        using stream = Stream.create();
        using mr = new DeviceMemoryResource(0, {});
        using source = mr.allocate(size, { stream });
        using target = mr.allocate(size, { stream });
        using first = stream.record(Event.create(undefined, { enableTiming: true }));
        // Far more copy work than the host needs to queue it and ask: the later event is still
        // pending when elapsedMs runs (upstream holds the stream with a spinning kernel instead).
        for (let copy = 0; copy < 400; copy++) target.copyFrom(source, { stream });
        using last = stream.record(Event.create(undefined, { enableTiming: true }));
        expect(last.isDone).toBe(false);
        const pending = cudaErrorOf(() => first.elapsedMs(last));
        expect(pending.call).toBe('cuEventElapsedTime');
        expect(pending.codeName).toBe('CUDA_ERROR_NOT_READY');
        last.sync();
        expect(first.elapsedMs(last)).toBeGreaterThan(0);
      },
    );
  });

  describe('completion', () => {
    it('test_is_sync_busy_waited: a blocking-sync event (and a default one) says so, records and syncs', () => {
      using stream = Stream.create();
      using blocking = stream.record(Event.create(undefined, { enableTiming: false, blockingSync: true }));
      using spinning = stream.record(Event.create(undefined, { enableTiming: false }));
      expect(blocking.isBlockingSync).toBe(true);
      expect(spinning.isBlockingSync).toBe(false);
      blocking.sync();
      spinning.sync();
      expect(blocking.isDone).toBe(true);
      expect(spinning.isDone).toBe(true);
      expect(() => Event.create(undefined, { blockingSync: 1 as never })).toThrow(TypeError);
    });

    it('test_sync: after sync() the event is done', async () => {
      using stream = Stream.create();
      using event = stream.record(Event.create(undefined, { enableTiming: false }));
      event.sync();
      expect(event.isDone).toBe(true);
      using later = stream.record(Event.create(undefined, { enableTiming: false }));
      await later.syncAsync();
      expect(later.isDone).toBe(true);
    });

    it('test_is_done: isDone is a boolean without a sync', () => {
      using stream = Stream.create();
      using event = stream.record(Event.create(undefined, { enableTiming: false }));
      expect(typeof event.isDone).toBe('boolean');
    });
  });

  describe('equality and keys', () => {
    it('test_event_inequality_different_events: two records make different events', () => {
      using stream = Stream.create();
      using first = stream.record();
      using second = stream.record();
      expect(first).not.toBe(second);
      expect(first.handle).not.toBe(second.handle);
    });

    it('test_event_type_safety: values of other kinds are not events, and comparing never throws', () => {
      using stream = Stream.create();
      using event = stream.record();
      for (const other of ['not an event', 123, null, undefined, stream]) {
        expect(Event.isEvent(other)).toBe(false);
        expect(Object.is(event, other)).toBe(false);
      }
      // An object inheriting from an event is not one either (`instanceof` would say it is).
      expect(Event.isEvent(Object.create(event))).toBe(false);
      expect(Event.isEvent(event)).toBe(true);
    });

    it('test_event_hash_consistency: an event keeps its handle and finds its own Map entry', () => {
      using stream = Stream.create();
      using event = stream.record();
      const handle = event.handle;
      const cache = new Map<Event, string>([[event, 'timing']]);
      event.sync();
      stream.record(event);
      expect(event.handle).toBe(handle);
      expect(cache.get(event)).toBe('timing');
      expect(() => {
        (event as { handle: bigint }).handle = handle + 1n;
      }).toThrow(TypeError);
      expect(event.handle).toBe(handle);
    });

    it('test_event_hash_equality: different events are different keys, the same event one key', () => {
      using stream = Stream.create();
      using first = stream.record();
      using second = stream.record();
      expect(first).not.toBe(second);
      expect(new Set([first.handle, second.handle]).size).toBe(2);
      const keys = new Set<Event>([first, first]);
      expect(keys.size).toBe(1);
      expect(keys.has(second)).toBe(false);
    });

    it('test_event_dict_key: events are Map keys', () => {
      using stream = Stream.create();
      using first = stream.record();
      using second = stream.record();
      const timings = new Map<Event, string>([
        [first, 'timing1'],
        [second, 'timing2'],
      ]);
      expect(timings.size).toBe(2);
      expect(timings.get(first)).toBe('timing1');
      expect(timings.get(second)).toBe('timing2');
    });

    it('test_event_set_membership: events are Set members, an event added twice once', () => {
      using stream = Stream.create();
      using first = stream.record();
      using second = stream.record();
      const events = new Set<Event>([first, second]);
      expect(events.size).toBe(2);
      events.add(first);
      expect(events.size).toBe(2);
    });
  });
});
