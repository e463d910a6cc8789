import { describe, expect, it } from 'vitest';
import { Device } from './device.js';
import { MemLocationType } from './driver/constants.js';
import { Host } from './host.js';
import { isLocation } from './location.js';
import { locationToMemLocation, memLocationToLocation } from './location-conversion.js';

describe('isLocation', () => {
  it('accepts devices and hosts only', () => {
    expect(isLocation(new Device(0))).toBe(true);
    expect(isLocation(new Host())).toBe(true);
    expect(isLocation(Host.numaCurrent())).toBe(true);
    for (const value of [0, null, undefined, 'host', {}, { ordinal: 0 }, { numaId: null }]) {
      expect(isLocation(value)).toBe(false);
    }
  });
});

describe('location conversion', () => {
  const cases = [
    [new Device(0), { type: MemLocationType.Device, id: 0 }],
    [new Device(2), { type: MemLocationType.Device, id: 2 }],
    [new Host(), { type: MemLocationType.Host, id: 0 }],
    [new Host({ numaId: 1 }), { type: MemLocationType.HostNuma, id: 1 }],
    [Host.numaCurrent(), { type: MemLocationType.HostNumaCurrent, id: 0 }],
  ] as const;

  it.each(cases)('%s <-> %o', (location, memLocation) => {
    expect(locationToMemLocation(location)).toEqual(memLocation);
    expect(memLocationToLocation(memLocation)).toBe(location);
  });

  it('maps Invalid to null', () => {
    expect(memLocationToLocation({ type: MemLocationType.Invalid, id: 0 })).toBeNull();
  });
});
