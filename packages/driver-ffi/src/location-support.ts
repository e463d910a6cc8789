// Refusals made before a driver call when a location or feature is outside what `capabilities`
// reports, so that the legacy mode behaves like a CUDA 12.0 driver on any newer driver.

import { type MemLocation, MemLocationType, NotSupportedError } from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { formatVersion } from './library-loader.js';

/** Throws NotSupportedError for a host NUMA location when `capabilities.hostNumaLocations` is false. */
export function requireLocationSupported(state: DriverState, location: MemLocation, call: string): void {
  const type = location.type;
  if (
    (type === MemLocationType.HostNuma || type === MemLocationType.HostNumaCurrent) &&
    !state.capabilities.hostNumaLocations
  ) {
    throw new NotSupportedError(
      `${call} with a host NUMA location needs a CUDA 13.0 driver used with entryPoints 'auto'; ${describeDriver(state)}`,
    );
  }
}

/** Throws NotSupportedError naming what `feature` needs. */
export function notSupported(state: DriverState, feature: string, needs: string): NotSupportedError {
  return new NotSupportedError(`${feature} needs ${needs}; ${describeDriver(state)}`);
}

function describeDriver(state: DriverState): string {
  return state.legacy
    ? `this driver (CUDA ${formatVersion(state.driverVersion)}) is used with entryPoints 'legacy' (CUDA 12.0 forms)`
    : `this driver supports CUDA ${formatVersion(state.driverVersion)}`;
}
