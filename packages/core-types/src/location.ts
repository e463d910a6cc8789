import { Device } from './device.js';
import { Host } from './host.js';

/** Where memory lives or is advised to live: a device, or the host (optionally one NUMA node). */
export type Location = Device | Host;

/** True for a {@link Device} or a {@link Host}, also ones made by another copy of this package. */
export function isLocation(value: unknown): value is Location {
  return Device.isInstance(value) || Host.isInstance(value);
}

/** Advice for managed memory, as `cuMemAdvise` takes it. */
export type ManagedAdvice =
  | 'setReadMostly'
  | 'unsetReadMostly'
  | 'setPreferredLocation'
  | 'unsetPreferredLocation'
  | 'setAccessedBy'
  | 'unsetAccessedBy';
