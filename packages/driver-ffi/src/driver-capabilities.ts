// What the loaded driver can do: the symbols koffi resolved, read against driver-kit's one
// derivation (shared with the N-API adapter and the reference driver).

import type { DriverCapabilities } from '@cumem/core-types';
import { deriveCapabilities, optionalEntryPoints } from '@cumem/driver-kit';
import type { Bindings } from './bindings.js';

/** Capabilities of a bound driver; `legacy` pins the CUDA 12.0 forms. */
export function driverCapabilities(
  bindings: Bindings,
  driverVersion: number,
  legacy: boolean,
): DriverCapabilities {
  const table = bindings as unknown as Readonly<Record<string, unknown>>;
  const resolved = optionalEntryPoints
    .filter((entry) => table[entry.symbol] !== undefined)
    .map((e) => e.symbol);
  return deriveCapabilities({
    resolved,
    driverVersion,
    mode: legacy ? 'legacy' : 'auto',
    interprocess: process.platform === 'linux',
  });
}
