import { describeValue, Host, isLocation, type Location, NotSupportedError } from '@cumem/core-types';
import type { DriverRuntime } from './driver-runtime.js';

/**
 * `value` as a {@link Location}.
 * @throws TypeError when it is not a Device or Host.
 */
export function checkLocation(value: unknown, name: string): Location {
  if (!isLocation(value))
    throw new TypeError(`${name} must be a Device or Host, got ${describeValue(value)}`);
  return value;
}

/** True for `Host({ numaId })` and `Host.numaCurrent()`. */
export function isNumaHost(location: Location): boolean {
  return Host.isInstance(location) && (location.numaId !== null || location.isNumaCurrent);
}

/**
 * Refuses a NUMA host location on a driver without them, before the driver is touched.
 * @throws NotSupportedError naming the CUDA 13.0 driver and `capabilities.hostNumaLocations`.
 */
export function checkNumaSupported(runtime: DriverRuntime, location: Location, what: string): void {
  if (isNumaHost(location) && !runtime.capabilities.hostNumaLocations) {
    throw new NotSupportedError(
      `${what} to ${String(location)} needs host NUMA locations, which cumem supports from a CUDA 13.0 driver ` +
        `(driver ${runtime.driver.name} reports capabilities.hostNumaLocations = false); use new Host() instead`,
    );
  }
}
