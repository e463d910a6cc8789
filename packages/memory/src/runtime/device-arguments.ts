import { checkSize, Device, describeValue } from '@cumem/core-types';
import type { DriverRuntime } from './driver-runtime.js';

/** What the API accepts for a device: a `Device` or its ordinal. */
export type DeviceLike = Device | number;

/**
 * The ordinal of `device` (a Device or a non-negative integer). Kind and sign are checked
 * before any driver call; existence against the runtime's (cached) device count.
 * @throws TypeError for another kind of value; RangeError for a device that does not exist.
 */
export function deviceOrdinal(runtime: DriverRuntime, device: unknown, name = 'device'): number {
  let ordinal: number;
  if (Device.isInstance(device)) ordinal = device.ordinal;
  else if (typeof device === 'number') ordinal = checkSize(device, name);
  else throw new TypeError(`${name} must be a Device or a device ordinal, got ${describeValue(device)}`);
  const count = runtime.deviceCount;
  if (ordinal >= count) {
    throw new RangeError(`${name} ${ordinal} does not exist: the driver reports ${count} device(s)`);
  }
  return ordinal;
}

/** Like {@link deviceOrdinal}; `undefined` means the current device. */
export function optionalDeviceOrdinal(runtime: DriverRuntime, device: unknown, name = 'device'): number {
  return device === undefined ? runtime.currentDevice : deviceOrdinal(runtime, device, name);
}

/** Checks the kind of a device argument without touching the driver. */
export function checkDeviceKind(device: unknown, name = 'device'): void {
  if (device === undefined || Device.isInstance(device)) return;
  if (typeof device === 'number') {
    checkSize(device, name);
    return;
  }
  throw new TypeError(`${name} must be a Device or a device ordinal, got ${describeValue(device)}`);
}
