// The vocabulary of the entry-point table (entry-point-table.ts): each parameter is written twice
// on one line, as the C declaration NVIDIA's cudaTypedefs.h has and as the kind of value an
// adapter passes for it. The N-API addon's header is generated from the C side; the FFI adapter's
// koffi types and JS argument types come from the kinds. The types below tie the two together,
// so a kind that cannot carry its C parameter fails to compile.

/** C enumerations the table passes as plain `int`. */
type CEnumeration =
  | 'CUresult'
  | 'CUdevice_attribute'
  | 'CUdevice_P2PAttribute'
  | 'CUfunction_attribute'
  | 'CUmemAllocationGranularity_flags'
  | 'CUmemAllocationHandleType'
  | 'CUmemAllocationType'
  | 'CUmemPool_attribute'
  | 'CUmem_advise'
  | 'CUmem_range_attribute'
  | 'CUpointer_attribute';

/** C handle types, all 64-bit: a `CUdeviceptr`, an opaque driver pointer or a VMM handle. */
type CHandle =
  | 'CUcontext'
  | 'CUdeviceptr_v2'
  | 'CUevent'
  | 'CUfunction'
  | 'CUkernel'
  | 'CUlibrary'
  | 'CUmemGenericAllocationHandle_v1'
  | 'CUmemoryPool'
  | 'CUstream'
  | 'void *';

/** Any C pointer type. */
type CPointer = `${string}*`;

/**
 * Parameter kinds, each with the C types it may stand for.
 * - `out`: a pointer the driver writes through; an adapter passes its own scratch memory.
 * - `hostAddress`: a pointer into host memory, passed by address.
 * - `buffer`: a pointer to JS memory read or written in place.
 * - `handle`: a 64-bit handle or device pointer.
 * - `intptr`: a pointer-sized integer in a `void *` (a POSIX file descriptor, as cuda.h says).
 * - `location`: `CUmemLocation` by value; the `*` kinds: a driver struct by pointer.
 * - `ipcHandle`: a 64-byte IPC handle by value.
 * - the others: the C scalar of that name.
 */
export interface ParameterCTypes {
  int: 'int' | 'CUdevice_v1' | CEnumeration;
  uint: 'unsigned int';
  uint8: 'unsigned char';
  uint16: 'unsigned short';
  ulonglong: 'unsigned long long' | 'cuuint64_t';
  size_t: 'size_t';
  intptr: 'void *';
  handle: CHandle;
  out: CPointer;
  hostAddress: CPointer | 'CUoccupancyB2DSize';
  buffer: CPointer;
  location: 'CUmemLocation_v1';
  'location*': 'CUmemLocation *' | 'CUmemLocation_v1 *' | 'const CUmemLocation_v1 *';
  'poolProps*': 'const CUmemPoolProps_v1 *';
  'memcpy2D*': 'const CUDA_MEMCPY2D_v2 *';
  'memcpy3D*': 'const CUDA_MEMCPY3D_v2 *';
  'memcpyAttributes*': 'CUmemcpyAttributes_v1 *';
  ipcHandle: 'CUipcMemHandle_v1' | 'CUipcEventHandle_v1';
  'allocationProp*': 'const CUmemAllocationProp_v1 *';
}

/** A parameter kind. */
export type ParameterKind = keyof ParameterCTypes;

/** A C parameter declaration of type `T`: `int ordinal`, `CUdeviceptr_v2 *dptr`. */
type CDeclaration<T extends string> = T extends CPointer ? `${T}${string}` : `${T} ${string}`;

/** One parameter: its kind and its C declaration, which must be of a type the kind can carry. */
export type EntryPointParameter = {
  [K in ParameterKind]: readonly [kind: K, declaration: CDeclaration<ParameterCTypes[K]>];
}[ParameterKind];

/** One row of the table. */
export interface EntryPointRow {
  /** The exported symbol, with its ABI suffix (`cuMemAlloc_v2`): what dlsym looks up. */
  readonly symbol: string;
  /** The API name (`cuMemAlloc`): `CudaError.call`, and what cuGetProcAddress takes. */
  readonly name: string;
  /** The CUDA version of this form's ABI: the `<version>` of cudaTypedefs.h's `PFN_<name>_v<version>`. */
  readonly abi: number;
  /** Some supported drivers (or test doubles) lack it: an adapter loads without it and checks before use. */
  readonly optional: boolean;
  /** Only the N-API loader's own lookup uses it; the FFI adapter binds symbols by name and skips it. */
  readonly loaderOnly: boolean;
  readonly parameters: readonly EntryPointParameter[];
}

type Row<S extends string, N extends string, P extends readonly EntryPointParameter[], O extends boolean> = {
  readonly symbol: S;
  readonly name: N;
  readonly abi: number;
  readonly optional: O;
  readonly loaderOnly: false;
  readonly parameters: P;
};

/** A row every supported driver has: a library without it fails to load. */
export function required<
  const S extends string,
  const N extends string,
  const P extends readonly EntryPointParameter[],
>(symbol: S, name: N, abi: number, parameters: P): Row<S, N, P, false> {
  return { symbol, name, abi, optional: false, loaderOnly: false, parameters };
}

/** A row the adapters check for before each use. */
export const optional = <
  const S extends string,
  const N extends string,
  const P extends readonly EntryPointParameter[],
>(
  symbol: S,
  name: N,
  abi: number,
  parameters: P,
): Row<S, N, P, true> => ({ ...required(symbol, name, abi, parameters), optional: true });

/** A row of the N-API loader alone (`cuGetProcAddress`). */
export function loaderOnly<const S extends string, const P extends readonly EntryPointParameter[]>(
  symbol: S,
  abi: number,
  parameters: P,
): EntryPointRow & { readonly symbol: S; readonly loaderOnly: true } {
  return { symbol, name: symbol, abi, optional: false, loaderOnly: true, parameters };
}
