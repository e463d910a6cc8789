// The one message set for what a driver refuses before any driver call because its version or
// the 'legacy' mode lacks it. The N-API addon's few native refusals (hot paths) spell the same
// text (native/location-support.h); the adapter tests compare both against these functions.
import {
  type DriverCapabilities,
  type EntryPointMode,
  formatCudaVersion,
  MemAllocationType,
  type MemLocation,
  MemLocationType,
  type MemPoolProperties,
  NotSupportedError,
} from '@cumem/core-types';
import { capabilityRules } from './entry-points.js';

/** What a refusal needs to know of the driver. */
export interface DriverFacts {
  readonly capabilities: DriverCapabilities;
  readonly driverVersion: number;
  readonly mode: EntryPointMode;
}

/** "(capabilities.<flag> is false: ...)": why the flag is false, the tail of every refusal. */
export function capabilityNote(
  facts: Omit<DriverFacts, 'capabilities'>,
  flag: keyof DriverCapabilities,
): string {
  const why =
    facts.mode === 'legacy'
      ? "createDriver({ entryPoints: 'legacy' }) uses the CUDA 12.0 entry points"
      : `the loaded driver is ${formatCudaVersion(facts.driverVersion)}`;
  return `(capabilities.${flag} is false: ${why})`;
}

/** `what` needs the CUDA version of `flag`'s rule: the NotSupportedError to throw. */
export function unsupported(
  facts: Omit<DriverFacts, 'capabilities'>,
  what: string,
  flag: keyof DriverCapabilities,
): NotSupportedError {
  const cuda = formatCudaVersion(capabilityRules[flag].cuda);
  return new NotSupportedError(`${what} needs a CUDA ${cuda} driver ${capabilityNote(facts, flag)}`);
}

/** Host NUMA location types, which need `capabilities.hostNumaLocations`. */
export function isHostNumaLocation(location: MemLocation): boolean {
  return location.type === MemLocationType.HostNuma || location.type === MemLocationType.HostNumaCurrent;
}

/** Refuses a host NUMA location when `capabilities.hostNumaLocations` is false. */
export function checkLocationSupported(facts: DriverFacts, location: MemLocation, call: string): void {
  if (!facts.capabilities.hostNumaLocations && isHostNumaLocation(location)) {
    throw unsupported(
      facts,
      `${call}: a host NUMA location (HostNuma, HostNumaCurrent)`,
      'hostNumaLocations',
    );
  }
}

/** Refuses a pool kind (managed, or page-locked host memory) the driver cannot create. */
export function checkPoolKindSupported(
  facts: DriverFacts,
  properties: MemPoolProperties,
  call: string,
): void {
  checkLocationSupported(facts, properties.location, call);
  const managed = properties.allocationType === MemAllocationType.Managed;
  if (managed && !facts.capabilities.managedMemoryPools) {
    throw unsupported(facts, `${call}: a pool of managed memory`, 'managedMemoryPools');
  }
  // Any location of a pinned pool but a device is host memory (Host, HostNuma, HostNumaCurrent).
  const type = properties.location.type;
  if (
    !managed &&
    type !== MemLocationType.Device &&
    type !== MemLocationType.Invalid &&
    !facts.capabilities.hostMemoryPools
  ) {
    throw unsupported(facts, `${call}: a pool of page-locked host memory`, 'hostMemoryPools');
  }
}
