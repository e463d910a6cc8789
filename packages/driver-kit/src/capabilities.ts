import type { DriverCapabilities, EntryPointMode } from '@cumem/core-types';
import { type CudaVersion, capabilityRules } from './entry-points.js';

/** What {@link deriveCapabilities} reads. */
export interface CapabilityInputs {
  /** The optional entry points the adapter resolved (symbol names of `optionalEntryPoints`). */
  readonly resolved: ReadonlySet<string> | readonly string[];
  /** `cuDriverGetVersion`. */
  readonly driverVersion: CudaVersion;
  /** The `entryPoints` option the driver was created with. */
  readonly mode: EntryPointMode;
  /** Whether the platform shares memory across processes (adapters: Linux; the reference driver: no). */
  readonly interprocess: boolean;
}

/**
 * The one derivation of `Driver.capabilities`, used by both adapters and the reference driver.
 * A flag is true when the driver's version reaches its rule's, every entry-point group of the
 * rule has a resolved member, and the mode keeps it ('legacy' pins the CUDA 12.0 forms).
 */
export function deriveCapabilities(inputs: CapabilityInputs): DriverCapabilities {
  const resolved = inputs.resolved instanceof Set ? inputs.resolved : new Set(inputs.resolved);
  const legacy = inputs.mode === 'legacy';
  const flags = {} as Record<keyof DriverCapabilities, boolean>;
  for (const [flag, rule] of Object.entries(capabilityRules) as [
    keyof DriverCapabilities,
    typeof capabilityRules.memoryLocations,
  ][]) {
    flags[flag] =
      (rule.legacy || !legacy) &&
      inputs.driverVersion >= rule.cuda &&
      rule.entryPoints.every((group) => group.some((symbol) => resolved.has(symbol)));
  }
  flags.interprocess = flags.interprocess && inputs.interprocess;
  return Object.freeze(flags);
}
