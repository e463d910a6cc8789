// What the loaded driver can do: the symbols koffi resolved, read against driver-kit's one
// derivation (shared with the N-API adapter and the reference driver).

import type { DriverCapabilities } from '@cumem/core-types';
import { chooseEntryPoints, deriveCapabilities, optionalEntryPoints } from '@cumem/driver-kit';
import type { Bindings } from './bindings.js';

/** The optional entry points of driver-kit's table and the older forms they supersede. */
const versionedForms = [
  ...new Set(
    optionalEntryPoints.flatMap((entry) =>
      entry.supersedes === null ? [entry.symbol] : [entry.symbol, entry.supersedes.symbol],
    ),
  ),
];

/**
 * Unbinds every versioned form driver-kit's `chooseEntryPoints` does not pick for this driver
 * version and mode (koffi binds whatever dlsym finds, also symbols newer than the driver reports),
 * so that each API is left with the one form both adapters call.
 */
export function keepChosenForms(bindings: Bindings, driverVersion: number, legacy: boolean): void {
  const table = bindings as unknown as Record<string, unknown>;
  const exported = versionedForms.filter((symbol) => table[symbol] !== undefined);
  const chosen = chooseEntryPoints({ exported, driverVersion, mode: legacy ? 'legacy' : 'auto' });
  for (const symbol of versionedForms) {
    if (symbol in table && !chosen.has(symbol)) table[symbol] = undefined;
  }
}

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
