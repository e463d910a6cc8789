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

/**
 * `value` as a location `CU_MEM_ADVISE_SET_ACCESSED_BY` accepts: cuda.h allows only
 * `CU_MEM_LOCATION_TYPE_DEVICE` and `CU_MEM_LOCATION_TYPE_HOST` ("all other location types are
 * invalid"), so a NUMA host is refused here rather than by the driver.
 * @throws TypeError for anything but a Device or `new Host()`.
 */
export function checkAccessorLocation(value: unknown, name: string): Location {
  const location = checkLocation(value, name);
  if (isNumaHost(location)) {
    throw new TypeError(
      `${name} must be a Device or new Host(), got ${String(location)}: the driver's accessed-by advice takes no NUMA host location`,
    );
  }
  return location;
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
