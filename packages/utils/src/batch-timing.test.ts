// The learned 'auto' strategy, driven by a deterministic device clock (timedDriver of
// @cumem/testing): the costs of the model decide which form is faster.
import { Device, type Driver, Host, type MemLocation, MemLocationType } from '@cumem/core-types';
import { type Buffer, DeviceMemoryResource, ManagedMemoryResource, Stream, useDriver } from '@cumem/memory';
import {
  countingDriver,
  createReferenceDriver,
  type DeviceClock,
  type DriverCallLog,
  timedDriver,
} from '@cumem/testing/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastPrefetch } from '../test/support.js';
import { learningSettings } from './batch-learning.js';
import { learnedBatchStrategies } from './batch-timing.js';
import { copyBatch } from './copy-batch.js';
import { discardBatch, prefetchBatch } from './managed-batch.js';

/**
 * Milliseconds of device time per call of each form; tests change them between calls.
 * `coldBatchCalls`: the next that many batch prefetches take 1 ms more (a cold start).
 */
const costs = { loopPerRange: 0.01, batchPerCall: 0.05, batchPerRange: 0.001, coldBatchCalls: 0 };
/** Host milliseconds one per-range prefetch takes to issue (moves `hostNow`). */
const host = { now: 0, perLoopCall: 0 };
const toHostFactor = { loop: 1, batch: 1 };
const isHost = (location: MemLocation) => location.type !== MemLocationType.Device;

function timed(deviceCount = 1): { driver: Driver; clock: DeviceClock; log: DriverCallLog } {
  const { driver, clock } = timedDriver(createReferenceDriver({ deviceCount }), {
    memPrefetchAsync: (_p: bigint, _s: number, location: MemLocation) => {
      host.now += host.perLoopCall;
      return costs.loopPerRange * (isHost(location) ? toHostFactor.loop : 1);
    },
    memPrefetchBatchAsync: (
      _p: BigUint64Array,
      _s: BigUint64Array,
      count: number,
      locations: MemLocation[],
    ) =>
      (costs.batchPerCall + costs.batchPerRange * count + (costs.coldBatchCalls-- > 0 ? 1 : 0)) *
      (isHost(locations[0]!) ? toHostFactor.batch : 1),
    memDiscardBatchAsync: (_p: BigUint64Array, _s: BigUint64Array, count: number) =>
      count === 1 ? costs.loopPerRange : costs.batchPerCall + costs.batchPerRange * count,
    memcpyAsync: () => costs.loopPerRange,
    memcpyBatchAsync: (_d: BigUint64Array, _s: BigUint64Array, _z: BigUint64Array, count: number) =>
      costs.batchPerCall + costs.batchPerRange * count,
  });
  const counted = countingDriver(driver);
  return { driver: counted.driver, clock, log: counted.log };
}

const count = (log: DriverCallLog, name: string) => log.calls.filter((call) => call === name).length;
const defaults = { ...learningSettings };

describe("strategy 'auto' learns the faster form on the device", () => {
  const device = new Device(0);
  const hostLocation = new Host();
  let setup: ReturnType<typeof timed>;
  let stream: Stream;
  let buffers: Buffer[];

  beforeEach(() => {
    Object.assign(costs, { loopPerRange: 0.01, batchPerCall: 0.05, batchPerRange: 0.001, coldBatchCalls: 0 });
    Object.assign(toHostFactor, { loop: 1, batch: 1 });
    // The host clock moves only where a test says: the model's device time counts.
    Object.assign(host, { now: 0, perLoopCall: 0 });
    learningSettings.now = () => host.now;
    // The counts below are of two samples a form and no warm-up call; the default settings have
    // a test of their own.
    learningSettings.samplesPerForm = 2;
    learningSettings.warmUpPerForm = 0;
    setup = timed();
    useDriver(setup.driver);
    stream = Stream.create(0);
    const managed = new ManagedMemoryResource();
    buffers = Array.from({ length: 16 }, () => managed.allocate(4096));
  });

  afterEach(() => {
    Object.assign(learningSettings, defaults);
    for (const buffer of buffers) buffer.close();
    if (!stream.isClosed) stream.close();
  });

  /** Prefetches to `where` `times` times, returning the calls of each form. */
  function prefetches(times: number, where: Device | Host | (Device | Host)[] = device) {
    setup.log.reset();
    for (let i = 0; i < times; i++) prefetchBatch(stream, buffers, where, { coalesce: false });
    return {
      loops: count(setup.log, 'memPrefetchAsync') / buffers.length,
      batches: count(setup.log, 'memPrefetchBatchAsync'),
      events: count(setup.log, 'eventRecord'),
    };
  }

  it('times both forms twice (batch, loop, loop, batch), then keeps the faster without events', () => {
    // 16 ranges: loop 0.16 ms, batch 0.066 ms.
    expect(prefetches(4)).toEqual({ loops: 2, batches: 2, events: 8 });
    expect(prefetches(10)).toEqual({ loops: 0, batches: 10, events: 0 });
    const [learned] = learnedBatchStrategies(stream);
    expect(learned).toMatchObject({ operation: 'prefetch', direction: 'toDevice', kind: 'batch' });
    expect(learned!.ranges[0]).toBeLessThanOrEqual(16);
    expect(learned!.ranges[1]).toBeGreaterThanOrEqual(16);
    expect(learned!.bytesPerRange[0]).toBeLessThanOrEqual(4096);
    expect(learned!.bytesPerRange[1]).toBeGreaterThan(4096);
    expect(learned!.batchMs).toBeCloseTo(0.066, 9);
    expect(learned!.loopMs).toBeCloseTo(0.16, 9);
    expect(count(setup.log, 'streamSynchronize') + count(setup.log, 'eventSynchronize')).toBe(0);
  });

  it("times one call of each form more on a class's first measurement, and does not count it", () => {
    learningSettings.warmUpPerForm = 1;
    // The first batch call is the slowest of all (a cold start, 1.066 ms): counted, its median
    // with the second (0.566 ms) would make the batch look slower than the loop (0.16 ms).
    costs.coldBatchCalls = 1;
    // batch (warm-up), loop (warm-up), loop, batch, batch, loop; the seventh call reads the last.
    expect(prefetches(6)).toEqual({ loops: 3, batches: 3, events: 12 });
    expect(prefetches(5)).toEqual({ loops: 0, batches: 5, events: 0 });
    const [learned] = learnedBatchStrategies(stream);
    expect(learned).toMatchObject({ kind: 'batch' });
    expect(learned!.batchMs).toBeCloseTo(0.066, 9);
  });

  it('with the default settings: a warm-up call of each form, then three samples each', () => {
    Object.assign(learningSettings, {
      samplesPerForm: defaults.samplesPerForm,
      warmUpPerForm: defaults.warmUpPerForm,
    });
    expect(defaults).toMatchObject({ samplesPerForm: 3, warmUpPerForm: 1 });
    // batch (warm-up), loop (warm-up), loop, batch, batch, loop, loop, batch; the ninth call reads the last.
    expect(prefetches(8)).toEqual({ loops: 4, batches: 4, events: 16 });
    expect(prefetches(5)).toEqual({ loops: 0, batches: 5, events: 0 });
    expect(learnedBatchStrategies(stream)[0]).toMatchObject({ kind: 'batch' });
  });

  it('picks the loop where the model makes it faster', () => {
    costs.batchPerCall = 1;
    prefetches(4);
    expect(prefetches(5)).toEqual({ loops: 5, batches: 0, events: 0 });
    expect(learnedBatchStrategies(stream)[0]?.kind).toBe('loop');
    for (const buffer of buffers) expect(lastPrefetch(setup.driver, buffer)).toBe('device:0');
  });

  it('times both forms five times when the first samples are close, then keeps the faster', () => {
    costs.batchPerCall = 0.15; // 16 ranges: batch 0.166 ms, loop 0.16 ms (4% apart)
    expect(prefetches(4)).toEqual({ loops: 2, batches: 2, events: 8 });
    expect(learnedBatchStrategies(stream)[0]?.kind).toBeUndefined();
    // The fifth call reads the fourth sample and goes on timing: batch, loop, loop, batch, batch, loop.
    expect(prefetches(6)).toEqual({ loops: 3, batches: 3, events: 12 });
    expect(prefetches(5)).toEqual({ loops: 5, batches: 0, events: 0 });
    expect(learnedBatchStrategies(stream)[0]).toMatchObject({ kind: 'loop' });
  });

  it('counts a form at least as long as it took to issue: work done in the call is not missed', () => {
    costs.batchPerCall = 1; // on the device the loop is faster (0.16 vs 1.016 ms) ...
    host.perLoopCall = 0.1; // ... but issuing its 16 calls takes 1.6 ms
    prefetches(5);
    const [learned] = learnedBatchStrategies(stream);
    expect(learned).toMatchObject({ kind: 'batch' });
    expect(learned!.loopMs).toBeCloseTo(1.6, 9);
  });

  it('learns each direction of a prefetch on its own', () => {
    // To the host the loop is 10x cheaper, to the device the batch call.
    toHostFactor.batch = 10;
    const alternating = buffers.map((_, i) => (i % 2 === 0 ? device : hostLocation));
    prefetches(4, alternating);
    setup.log.reset();
    prefetchBatch(stream, buffers, alternating, { coalesce: false });
    expect(count(setup.log, 'memPrefetchAsync')).toBe(buffers.length / 2);
    expect(count(setup.log, 'memPrefetchBatchAsync')).toBe(1);
    expect(count(setup.log, 'eventRecord')).toBe(0);
    buffers.forEach((buffer, i) => {
      expect(lastPrefetch(setup.driver, buffer)).toBe(i % 2 === 0 ? 'device:0' : 'host');
    });
    const kinds = Object.fromEntries(learnedBatchStrategies(stream).map((l) => [l.direction, l.kind]));
    expect(kinds).toEqual({ toHost: 'loop', toDevice: 'batch' });
  });

  it('keeps size classes apart: another range count learns anew', () => {
    prefetches(4);
    setup.log.reset();
    prefetchBatch(stream, buffers.slice(0, 2), device, { coalesce: false });
    expect(count(setup.log, 'eventRecord')).toBe(2);
  });

  it('times the choice again after recheckCalls calls, and after recheckMs', () => {
    let now = 0;
    learningSettings.now = () => now;
    learningSettings.recheckCalls = 5;
    prefetches(4);
    expect(prefetches(4).events).toBe(0);
    costs.batchPerCall = 1; // the batch call got slower
    expect(prefetches(1).events).toBe(2); // the 5th call since the choice is timed again
    prefetches(3);
    // The last sample is read by the next call, which then takes the new choice.
    expect(prefetches(3)).toEqual({ loops: 3, batches: 0, events: 0 });
    expect(learnedBatchStrategies(stream)[0]?.kind).toBe('loop');

    learningSettings.recheckCalls = 1000;
    expect(prefetches(10).events).toBe(0);
    now += learningSettings.recheckMs;
    expect(prefetches(1).events).toBe(2);
  });

  it('follows a forced strategy without timing it', () => {
    setup.log.reset();
    for (let i = 0; i < 3; i++) prefetchBatch(stream, buffers, device, { strategy: 'loop' });
    prefetchBatch(stream, buffers, device, { strategy: 'batch' });
    prefetchBatch(stream, buffers, device, { requireBatch: true });
    expect(count(setup.log, 'eventRecord')).toBe(0);
    expect(count(setup.log, 'memPrefetchBatchAsync')).toBe(2);
    expect(learnedBatchStrategies(stream)).toEqual([]);
  });

  it('never waits: while the end events have not completed, calls take the fallback untimed', () => {
    setup.clock.holdEvents = true;
    expect(prefetches(4).events).toBe(8);
    expect(prefetches(3)).toEqual({ loops: 0, batches: 3, events: 0 }); // table: to the device in one batch call
    expect(learnedBatchStrategies(stream)[0]?.kind).toBeUndefined();
    costs.batchPerCall = 1;
    setup.clock.holdEvents = false;
    // The four samples were taken at the old costs: batch stays.
    expect(prefetches(1)).toEqual({ loops: 0, batches: 1, events: 0 });
    expect(count(setup.log, 'eventSynchronize') + count(setup.log, 'streamSynchronize')).toBe(0);
  });

  it('falls back to the table when events fail, and stops timing on that device', () => {
    const alternating = buffers.map((_, i) => (i % 2 === 0 ? device : hostLocation));
    setup.clock.failEvents = true;
    setup.log.reset();
    prefetchBatch(stream, buffers, alternating, { coalesce: false });
    // The table's 'split': host-bound ranges one call each, device-bound ones in one batch call.
    expect(count(setup.log, 'memPrefetchAsync')).toBe(buffers.length / 2);
    expect(count(setup.log, 'memPrefetchBatchAsync')).toBe(1);
    setup.clock.failEvents = false;
    expect(prefetches(4, alternating).events).toBe(0);
    expect(learnedBatchStrategies(stream)).toEqual([]);
  });

  it('falls back when reading a pending measurement fails, releasing its events', () => {
    prefetches(2);
    setup.clock.failEvents = true;
    expect(() => prefetches(1)).not.toThrow();
    setup.clock.failEvents = false;
    setup.log.reset();
    expect(prefetches(3).events).toBe(0);
    expect(learnedBatchStrategies(stream)).toEqual([]);
  });

  it('learnedBatchStrategies refuses a non-Stream and answers for a closed one', () => {
    expect(() => learnedBatchStrategies({ handle: 1n, device } as never)).toThrow(TypeError);
    expect(() => learnedBatchStrategies(undefined as never)).toThrow(TypeError);
    prefetches(5);
    const closed = Stream.create(0);
    closed.close();
    expect(learnedBatchStrategies(closed)[0]?.kind).toBe('batch');
  });

  it('ends the measuring on an impossible event time (negative): the table from then on', () => {
    const { driver: inner } = timedDriver(createReferenceDriver(), {
      memPrefetchBatchAsync: () => -1,
      memPrefetchAsync: () => 0.01,
    });
    const counted = countingDriver(inner);
    useDriver(counted.driver);
    const own = Stream.create(0);
    const managed = new ManagedMemoryResource();
    const ranges = Array.from({ length: 4 }, () => managed.allocate(4096));
    try {
      for (let i = 0; i < 3; i++) prefetchBatch(own, ranges, device, { coalesce: false });
      counted.log.reset();
      prefetchBatch(own, ranges, device, { coalesce: false });
      expect(count(counted.log, 'eventRecord')).toBe(0);
      expect(count(counted.log, 'memPrefetchBatchAsync')).toBe(1); // the table: to the device in one call
      expect(learnedBatchStrategies(own)).toEqual([]);
    } finally {
      for (const buffer of ranges) buffer.close();
      own.close();
      useDriver(setup.driver);
    }
  });

  it('survives a closed stream: a measurement taken on it is read on the next call', () => {
    prefetches(3);
    stream.close();
    stream = Stream.create(0);
    prefetches(1);
    expect(prefetches(3).events).toBe(0);
    expect(learnedBatchStrategies(stream)[0]?.kind).toBe('batch');
  });

  it('destroys the start event of a timed call whose driver call threw', () => {
    setup.log.reset();
    const created = () => count(setup.log, 'eventCreate') - count(setup.log, 'eventDestroy');
    buffers[3]!.close();
    expect(() => prefetchBatch(stream, buffers, device)).toThrow();
    buffers[3] = new ManagedMemoryResource().allocate(4096);
    prefetches(5);
    expect(created()).toBe(0);
  });

  it('learns per driver and per device', () => {
    costs.batchPerCall = 1;
    prefetches(5);
    expect(learnedBatchStrategies(stream)[0]?.kind).toBe('loop');
    // Another driver (a second reference driver with two devices) learns on its own, per device.
    const other = timed(2);
    useDriver(other.driver);
    costs.batchPerCall = 0.05;
    const managed = new ManagedMemoryResource();
    const own = Array.from({ length: 16 }, () => managed.allocate(4096));
    try {
      for (const ordinal of [0, 1]) {
        const onDevice = Stream.create(ordinal);
        other.log.reset();
        for (let i = 0; i < 5; i++) prefetchBatch(onDevice, own, new Device(ordinal), { coalesce: false });
        expect(count(other.log, 'eventRecord')).toBe(8);
        expect(learnedBatchStrategies(onDevice)[0]?.kind).toBe('batch');
        onDevice.close();
      }
      expect(learnedBatchStrategies(stream)[0]?.kind).toBe('loop');
    } finally {
      for (const buffer of own) buffer.close();
      useDriver(setup.driver);
    }
  });

  it('discardBatch and copyBatch learn too', () => {
    costs.batchPerCall = 1;
    setup.log.reset();
    for (let i = 0; i < 6; i++) discardBatch(stream, buffers, { coalesce: false });
    // Discard's loop is the batch entry point with one range per call.
    expect(learnedBatchStrategies(stream).find((l) => l.operation === 'discard')?.kind).toBe('loop');
    const resource = new DeviceMemoryResource(0);
    const srcs = Array.from({ length: 8 }, () => resource.allocate(256));
    const dsts = Array.from({ length: 8 }, () => resource.allocate(256));
    costs.batchPerCall = 0.001;
    for (let i = 0; i < 5; i++) copyBatch(stream, dsts, srcs);
    setup.log.reset();
    copyBatch(stream, dsts, srcs);
    expect(count(setup.log, 'memcpyBatchAsync')).toBe(1);
    expect(count(setup.log, 'memcpyAsync')).toBe(0);
    expect(learnedBatchStrategies(stream).find((l) => l.operation === 'copy')?.kind).toBe('batch');
    for (const buffer of [...srcs, ...dsts]) buffer.close();
  });
});
