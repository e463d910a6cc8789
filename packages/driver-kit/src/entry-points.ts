// The entry points whose presence decides a capability: each adapter resolves them (FFI through
// koffi, N-API through cuGetProcAddress) and reports which it found; policy lives here, once.
import type { DriverCapabilities } from '@cumem/core-types';

/** CUDA version numbers as the driver reports them (`cuDriverGetVersion`): 1000 * major + 10 * minor. */
export type CudaVersion = number;

/** The forms 'legacy' pins: a CUDA 12.0 driver's. */
export const LEGACY_CUDA_VERSION: CudaVersion = 12000;

/** One optional entry point: the symbol libcuda exports, since when, and what it feeds. */
export interface OptionalEntryPoint {
  /** The exported symbol (dlsym name; cuGetProcAddress knows it by its API name). */
  readonly symbol: string;
  /** The CUDA version that introduced this form. */
  readonly introduced: CudaVersion;
  /** Always false here: a required entry point missing fails the load instead. */
  readonly required: false;
  /** The capability this entry point feeds, or null when it only changes how a call is made. */
  readonly feeds: keyof DriverCapabilities | null;
  /**
   * The older exported form of the same API that this one supersedes, and since when it exists;
   * null for a new API. {@link chooseEntryPoints} calls one form per API.
   */
  readonly supersedes: { readonly symbol: string; readonly introduced: CudaVersion } | null;
}

/** Every optional entry point cumem resolves, newest forms last. */
export const optionalEntryPoints: readonly OptionalEntryPoint[] = Object.freeze([
  {
    symbol: 'cuMemAdvise_v2',
    introduced: 12020,
    required: false,
    feeds: 'memoryLocations',
    supersedes: { symbol: 'cuMemAdvise', introduced: 8000 },
  },
  {
    symbol: 'cuMemPrefetchAsync_v2',
    introduced: 12020,
    required: false,
    feeds: 'memoryLocations',
    supersedes: { symbol: 'cuMemPrefetchAsync', introduced: 8000 },
  },
  {
    symbol: 'cuEventElapsedTime_v2',
    introduced: 12080,
    required: false,
    feeds: null,
    supersedes: { symbol: 'cuEventElapsedTime', introduced: 2000 },
  },
  {
    symbol: 'cuMemcpyBatchAsync',
    introduced: 12080,
    required: false,
    feeds: 'batchMemcpy',
    supersedes: null,
  },
  {
    symbol: 'cuMemcpyBatchAsync_v2',
    introduced: 13000,
    required: false,
    feeds: 'batchMemcpy',
    supersedes: { symbol: 'cuMemcpyBatchAsync', introduced: 12080 },
  },
  {
    symbol: 'cuMemPrefetchBatchAsync',
    introduced: 13000,
    required: false,
    feeds: 'batchPrefetchDiscard',
    supersedes: null,
  },
  {
    symbol: 'cuMemDiscardBatchAsync',
    introduced: 13000,
    required: false,
    feeds: 'batchPrefetchDiscard',
    supersedes: null,
  },
  {
    symbol: 'cuMemDiscardAndPrefetchBatchAsync',
    introduced: 13000,
    required: false,
    feeds: 'batchPrefetchDiscard',
    supersedes: null,
  },
  {
    symbol: 'cuMemGetMemPool',
    introduced: 13000,
    required: false,
    feeds: 'memoryPoolQueries',
    supersedes: null,
  },
  {
    symbol: 'cuMemGetDefaultMemPool',
    introduced: 13000,
    required: false,
    feeds: 'memoryPoolQueries',
    supersedes: null,
  },
  {
    symbol: 'cuFuncGetParamInfo',
    introduced: 12040,
    required: false,
    feeds: 'kernelParameterInfo',
    supersedes: null,
  },
] as const satisfies readonly OptionalEntryPoint[]);

/**
 * What one capability needs. `cuda`: the driver version; `entryPoints`: groups of symbols, every
 * group needing one of its members; `legacy`: whether 'legacy' mode keeps it.
 */
export interface CapabilityRule {
  readonly cuda: CudaVersion;
  readonly entryPoints: readonly (readonly string[])[];
  readonly legacy: boolean;
}

/** The rule of every capability flag. The conformance suite checks every driver against it. */
export const capabilityRules: Readonly<Record<keyof DriverCapabilities, CapabilityRule>> = Object.freeze({
  memoryLocations: {
    cuda: 12020,
    entryPoints: [['cuMemAdvise_v2'], ['cuMemPrefetchAsync_v2']],
    legacy: false,
  },
  hostNumaLocations: {
    cuda: 13000,
    entryPoints: [['cuMemAdvise_v2'], ['cuMemPrefetchAsync_v2']],
    legacy: false,
  },
  batchPrefetchDiscard: {
    cuda: 13000,
    entryPoints: [
      ['cuMemPrefetchBatchAsync'],
      ['cuMemDiscardBatchAsync'],
      ['cuMemDiscardAndPrefetchBatchAsync'],
    ],
    legacy: false,
  },
  batchMemcpy: { cuda: 12080, entryPoints: [['cuMemcpyBatchAsync_v2', 'cuMemcpyBatchAsync']], legacy: false },
  // Pools of host or managed memory: cuMemPoolCreate accepts those locations from CUDA 13.0.
  hostMemoryPools: { cuda: 13000, entryPoints: [], legacy: false },
  managedMemoryPools: { cuda: 13000, entryPoints: [], legacy: false },
  // POSIX file descriptors and cuIpc*: a matter of the platform, decided by the caller.
  interprocess: { cuda: 0, entryPoints: [], legacy: true },
  memoryPoolQueries: {
    cuda: 13000,
    entryPoints: [['cuMemGetMemPool'], ['cuMemGetDefaultMemPool']],
    legacy: false,
  },
  kernelParameterInfo: { cuda: 12040, entryPoints: [['cuFuncGetParamInfo']], legacy: false },
});

/** The optional symbols a driver of `driverVersion` exports: those introduced at or before it. */
export function symbolsOfVersion(driverVersion: CudaVersion): ReadonlySet<string> {
  return new Set(optionalEntryPoints.filter((e) => e.introduced <= driverVersion).map((e) => e.symbol));
}
