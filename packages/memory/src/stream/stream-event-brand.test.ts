// A Stream or Event argument is taken by its brand (Stream.isStream, Event.isEvent: one
// private-field test), not by `instanceof`: an object inheriting from a Stream or an Event, or a
// Proxy of one, passes `instanceof` and would fail on its first private read with the engine's TypeError
// ("Cannot read private member"), which names neither the argument nor what it should be. Each
// entry point below refuses such imitations with its own TypeError, before any driver call, and
// still takes the real object.
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { reachableOn } from '../copy/peer-copy.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { bindStreamDriver, driverOf } from '../runtime/object-driver.js';
import { Event } from './event.js';
import { Stream } from './stream.js';

function imitationsOf<T extends object>(real: T): unknown[] {
  return [Object.create(real), new Proxy(real, {}), {}];
}

describeEachDriver(adapters, 'Stream and Event arguments', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('refuses imitations of a Stream by name, and takes a Stream', () => {
    using stream = Stream.create(0);
    using other = Stream.create(0);
    const resource = new DeviceMemoryResource(0);
    const buffer = resource.allocate(64, { stream });
    for (const imitation of imitationsOf(other)) {
      expect(() => stream.wait(imitation as Stream)).toThrow(/wait\(\) takes an Event or a Stream, got/);
      expect(() => buffer.toDLPack({ stream: imitation as Stream })).toThrow(
        /stream must be a Stream of @cumem\/memory or -1, got/,
      );
      expect(() => driverOf(imitation as Stream)).toThrow(/driverOf needs a Stream, Event or Buffer/);
      expect(() => bindStreamDriver(imitation as Stream)).toThrow(/bindStreamDriver needs a Stream/);
      expect(() => reachableOn(imitation as Stream, buffer.handle, 0, false)).toThrow(
        /stream must be a Stream of @cumem\/memory/,
      );
    }
    stream.wait(other);
    expect(driverOf(other)).toBe(entry.driver);
    expect(bindStreamDriver(other)).toBe(entry.driver);
    expect(reachableOn(other, buffer.handle, 0, false)).toBe(true);
    const capsule = buffer.toDLPack({ stream: other });
    capsule.close();
    buffer.close({ stream });
    stream.sync();
    resource.close();
  });

  it('refuses imitations of an Event by name, and takes an Event', () => {
    using stream = Stream.create(0);
    using event = Event.create(0);
    for (const imitation of imitationsOf(event)) {
      expect(() => stream.record(imitation as Event)).toThrow(/event must be an Event, got/);
      expect(() => event.elapsedMs(imitation as Event)).toThrow(/later must be an Event, got/);
      // Not an Event, so wait() asks whether it is a Stream, and names both.
      expect(() => stream.wait(imitation as Event)).toThrow(/wait\(\) takes an Event or a Stream, got/);
      expect(() => driverOf(imitation as Event)).toThrow(/driverOf needs a Stream, Event or Buffer/);
    }
    using later = Event.create(0);
    stream.record(event);
    stream.record(later);
    stream.wait(event);
    stream.sync();
    expect(event.elapsedMs(later)).toBeGreaterThanOrEqual(0);
    expect(driverOf(event)).toBe(entry.driver);
  });

  it('Stream.isStream and Event.isEvent answer by brand; stream.device is one Device', () => {
    using stream = Stream.create(0);
    const event = stream.record();
    expect([Stream.isStream(stream), Event.isEvent(event)]).toEqual([true, true]);
    for (const imitation of [...imitationsOf(stream), event, null, 1])
      expect(Stream.isStream(imitation)).toBe(false);
    for (const imitation of [...imitationsOf(event), stream, undefined])
      expect(Event.isEvent(imitation)).toBe(false);
    stream.close();
    expect(Stream.isStream(stream)).toBe(true);
    expect(stream.device).toBe(stream.device);
    expect(stream.device.ordinal).toBe(0);
    event.close();
    expect(Event.isEvent(event)).toBe(true);
  });
});
