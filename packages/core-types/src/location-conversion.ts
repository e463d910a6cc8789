import { Device } from './device.js';
import { type MemLocation, MemLocationType } from './driver/constants.js';
import { Host } from './host.js';
import type { Location } from './location.js';

/** The driver's `CUmemLocation` for a {@link Location}. */
export function locationToMemLocation(location: Location): MemLocation {
  if (Device.isInstance(location)) return { type: MemLocationType.Device, id: location.ordinal };
  if (location.isNumaCurrent) return { type: MemLocationType.HostNumaCurrent, id: 0 };
  if (location.numaId !== null) return { type: MemLocationType.HostNuma, id: location.numaId };
  return { type: MemLocationType.Host, id: 0 };
}

/** The {@link Location} for a driver `CUmemLocation`, or null for Invalid/None. */
export function memLocationToLocation(location: MemLocation): Location | null {
  switch (location.type) {
    case MemLocationType.Device:
      return new Device(location.id);
    case MemLocationType.Host:
      return new Host();
    case MemLocationType.HostNuma:
      return new Host({ numaId: location.id });
    case MemLocationType.HostNumaCurrent:
      return Host.numaCurrent();
    default:
      return null;
  }
}
