// Binds driver-kit's entry-point table against a loaded library: each symbol by its exact
// versioned name (dlsym), so the ABI called is the one the table declares, whatever
// cuGetProcAddress would map a bare name to.
import { type EntryPointRow, entryPointTable, type ParameterKind } from '@cumem/driver-kit';
import type { Bindings } from './bindings.js';
import type { Koffi } from './koffi-module.js';
import { packsLocationAsInteger } from './location-argument.js';
import { driverStructs } from './structs.js';

type TypeSpec = Parameters<Koffi['sizeof']>[0];

/** The koffi type of each parameter kind that is not a driver struct, by name (a worker thread binds with these too). */
export const plainParameterTypes = Object.freeze({
  int: 'int',
  uint: 'unsigned int',
  uint8: 'uint8_t',
  uint16: 'uint16_t',
  ulonglong: 'unsigned long long',
  size_t: 'size_t',
  intptr: 'intptr_t',
  handle: 'uint64_t',
  out: 'uintptr_t',
  hostAddress: 'uintptr_t',
  buffer: 'void *',
});

/** The koffi type of each parameter kind. */
export function parameterTypes(koffi: Koffi): Record<ParameterKind, TypeSpec> {
  const structs = driverStructs(koffi);
  return {
    ...plainParameterTypes,
    location: packsLocationAsInteger ? 'uint64_t' : structs.CUmemLocation,
    'location*': koffi.pointer(structs.CUmemLocation),
    'poolProps*': koffi.pointer(structs.CUmemPoolProps),
    'memcpy2D*': koffi.pointer(structs.CUDA_MEMCPY2D),
    'memcpy3D*': koffi.pointer(structs.CUDA_MEMCPY3D),
    'memcpyAttributes*': koffi.pointer(structs.CUmemcpyAttributes),
    ipcHandle: structs.CUipcMemHandle,
    'allocationProp*': koffi.pointer(structs.CUmemAllocationProp),
  };
}

/** Binds every entry point; `missing` lists required symbols the library lacks. */
export function bindEntryPoints(
  koffi: Koffi,
  library: ReturnType<Koffi['load']>,
): { bindings: Bindings; missing: string[] } {
  const types = parameterTypes(koffi);
  const bound: Record<string, unknown> = {};
  const missing: string[] = [];
  const rows: readonly EntryPointRow[] = Object.values(entryPointTable);
  for (const row of rows) {
    if (row.loaderOnly) continue;
    try {
      bound[row.symbol] = library.func(
        row.symbol,
        'int',
        row.parameters.map(([kind]) => types[kind]),
      );
    } catch {
      // koffi throws when dlsym finds no such symbol.
      bound[row.symbol] = undefined;
      if (!row.optional) missing.push(row.symbol);
    }
  }
  // A copy made in one step: an object built by many keyed stores can be left slower to read
  // from, and every driver call reads its function from this one.
  return { bindings: { ...bound } as Bindings, missing };
}
