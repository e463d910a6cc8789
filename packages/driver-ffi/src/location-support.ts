// Refusals made before a driver call when a location or feature is outside what `capabilities`
// reports, so that the legacy mode behaves like a CUDA 12.0 driver on any newer driver. The
// rules and messages are driver-kit's, shared with the N-API adapter.

import type {
  DriverCapabilities,
  MemLocation,
  MemPoolProperties,
  NotSupportedError,
} from '@cumem/core-types';
import { checkLocationSupported, checkPoolKindSupported, unsupported } from '@cumem/driver-kit';
import type { DriverState } from './driver-state.js';

/** Throws NotSupportedError for a host NUMA location when `capabilities.hostNumaLocations` is false. */
export function requireLocationSupported(state: DriverState, location: MemLocation, call: string): void {
  // The kit's rule; its facts are built only where it can refuse, so a supported call allocates nothing.
  if (!state.capabilities.hostNumaLocations) checkLocationSupported(facts(state), location, call);
}

/** Refuses a pool of a kind (managed, page-locked host) the driver cannot create. */
export function requirePoolKindSupported(
  state: DriverState,
  properties: MemPoolProperties,
  call: string,
): void {
  checkPoolKindSupported(facts(state), properties, call);
}

/** The NotSupportedError for `what`, which needs `flag`. */
export function notSupported(
  state: DriverState,
  what: string,
  flag: keyof DriverCapabilities,
): NotSupportedError {
  return unsupported(facts(state), what, flag);
}

function facts(state: DriverState) {
  return {
    capabilities: state.capabilities,
    driverVersion: state.driverVersion,
    mode: state.legacy ? ('legacy' as const) : ('auto' as const),
  };
}
