// Which form of each optional entry point an adapter calls: the one policy both adapters follow
// (the FFI adapter filters what koffi bound with it; the N-API addon's resolver spells the same
// rules in C++, native/driver-loader.cc, and the shared fake-adapter suite holds them to it).
import type { EntryPointMode } from '@cumem/core-types';
import { type CudaVersion, LEGACY_CUDA_VERSION, optionalEntryPoints } from './entry-points.js';

/** What {@link chooseEntryPoints} reads. */
export interface EntryPointChoiceInputs {
  /** The symbols the library has (exported, or found by cuGetProcAddress), whatever their version. */
  readonly exported: ReadonlySet<string> | readonly string[];
  /** `cuDriverGetVersion`. */
  readonly driverVersion: CudaVersion;
  /** The `entryPoints` option the driver was created with. */
  readonly mode: EntryPointMode;
}

/**
 * The forms an adapter calls, out of the optional entry points and the older forms they
 * supersede (`optionalEntryPoints[i].supersedes`): one form per API.
 *
 * - A form is usable when the library has it and it is no newer than the mode's ceiling: the
 *   driver's version ('auto'), or CUDA 12.0 ('legacy'). A symbol the library exports beyond its
 *   reported version is not called (its signature may not be the one the table declares).
 * - Of an API's usable forms, the newest is called.
 * - 'legacy' on a driver that no longer has a CUDA 12.0 form: the newer form that supersedes it
 *   stands in for it (same arguments: the adapters pass only what the old form could express),
 *   when the driver's version has it. Without either, the API is absent.
 */
export function chooseEntryPoints(inputs: EntryPointChoiceInputs): ReadonlySet<string> {
  const has = inputs.exported instanceof Set ? inputs.exported : new Set(inputs.exported);
  const legacy = inputs.mode === 'legacy';
  const ceiling = legacy ? Math.min(LEGACY_CUDA_VERSION, inputs.driverVersion) : inputs.driverVersion;
  const usable = (symbol: string, introduced: CudaVersion) => has.has(symbol) && introduced <= ceiling;
  const chosen = new Set<string>();
  for (const entry of optionalEntryPoints) {
    const older = entry.supersedes;
    if (usable(entry.symbol, entry.introduced)) chosen.add(entry.symbol);
    else if (older === null) continue;
    else if (usable(older.symbol, older.introduced)) chosen.add(older.symbol);
    else if (
      legacy &&
      older.introduced <= ceiling &&
      has.has(entry.symbol) &&
      entry.introduced <= inputs.driverVersion
    ) {
      chosen.add(entry.symbol);
    }
  }
  // One form per API: a chosen form drops the one it supersedes.
  for (const entry of optionalEntryPoints) {
    if (entry.supersedes !== null && chosen.has(entry.symbol)) chosen.delete(entry.supersedes.symbol);
  }
  return chosen;
}
