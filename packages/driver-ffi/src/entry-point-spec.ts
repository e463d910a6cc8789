// The vocabulary bindings.ts declares libcuda's entry points in: parameter kinds, the JS value
// each takes, and the two helpers that make a table entry.

import type { MemLocation } from '@cumem/core-types';

/**
 * Parameter kinds and the JS value each takes.
 * - `out`: a number address of the adapter's native scratch memory (`T *` outputs). A typed array
 *   would work too, but koffi's typed-array path measured ~190 ns slower per call than a plain
 *   `uintptr_t` (see README, "Performance").
 * - `hostAddress`: a number address of JS memory (`void *`), see host-memory.ts.
 * - `buffer`: JS memory read or written in place (`void *`), passed as the typed array.
 * - `handle`: a `uint64_t` handle or device pointer: the contract's bigint, or the exact number
 *   that handle-argument.ts makes of it on the hot paths (koffi converts a number faster).
 * - `location`: `CUmemLocation` by value (see location-argument.ts).
 */
export interface ParameterKinds {
  int: number;
  uint: number;
  uint8: number;
  uint16: number;
  ulonglong: number;
  size_t: number;
  intptr: number;
  handle: bigint | number;
  out: number;
  hostAddress: number;
  buffer: ArrayBufferView;
  location: number | bigint | MemLocation;
  'location*': MemLocation;
  'poolProps*': object;
  'accessDesc*': object;
  'memcpy2D*': object;
  'memcpy3D*': object;
  'memcpyAttributes*': object;
  ipcHandle: { reserved: Uint8Array };
  'allocationProp*': object;
}

/** A parameter kind. */
export type ParameterKind = keyof ParameterKinds;

/** One row of the table. */
export interface EntryPointSpec {
  /** Symbol looked up in the library. */
  readonly symbol: string;
  /** Name in error messages: the API name without its ABI suffix. */
  readonly name: string;
  /** Driver version (1000 * major + 10 * minor) that introduced this symbol. */
  readonly since: number;
  /** Absent from some supported drivers: the adapter checks before use. */
  readonly optional?: true;
  readonly parameters: readonly ParameterKind[];
}

export function entry<const P extends readonly ParameterKind[], const N extends string>(
  symbol: string,
  name: N,
  since: number,
  parameters: P,
): { symbol: string; name: N; since: number; parameters: P } {
  return { symbol, name, since, parameters };
}

export function optionalEntry<const P extends readonly ParameterKind[], const N extends string>(
  symbol: string,
  name: N,
  since: number,
  parameters: P,
): { symbol: string; name: N; since: number; parameters: P; optional: true } {
  return { symbol, name, since, parameters, optional: true };
}
