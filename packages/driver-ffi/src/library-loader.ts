// Opens libcuda, initialises it and binds the table. Runs on the first member that needs the
// driver; any failure is a DriverUnavailableError whose message says what was tried and what to do.

import { type CudaError, DriverUnavailableError } from '@cumem/core-types';
import {
  type DriverLoadFailure,
  driverUnavailableMessage,
  MINIMUM_DRIVER_VERSION,
  unsupportedPlatformError,
} from '@cumem/driver-kit';
import type { Bindings } from './bindings.js';
import { driverCapabilities, keepChosenForms } from './driver-capabilities.js';
import type { DriverState } from './driver-state.js';
import { bindEntryPoints } from './entry-point-binder.js';
import { createErrorCheck, cudaError, type DescribeResult } from './error-check.js';
import { type Koffi, loadKoffi } from './koffi-module.js';
import { createNativeScratch } from './native-scratch.js';

const CUDA_ERROR_STUB_LIBRARY = 34;
const CUDA_ERROR_NO_DEVICE = 100;

/** The DriverUnavailableError for `failure`, worded as the napi adapter words it (core-types). */
function unavailable(failure: DriverLoadFailure, cause?: unknown): DriverUnavailableError {
  return new DriverUnavailableError(
    failure.reason,
    driverUnavailableMessage(failure),
    cause === undefined ? undefined : { cause },
  );
}

/** Loads, initialises and binds the driver. Throws DriverUnavailableError. */
export function loadDriver(path: string, legacy: boolean): DriverState {
  const elsewhere = unsupportedPlatformError('ffi');
  if (elsewhere) throw elsewhere;
  let koffi: Koffi;
  try {
    koffi = loadKoffi();
  } catch (error) {
    throw new DriverUnavailableError(
      'library-missing',
      `The ffi adapter cannot load koffi (${(error as Error).message}). koffi ships builds for Linux x64 and ` +
        'arm64; reinstall dependencies on this machine, or use the napi adapter.',
      { cause: error },
    );
  }
  let library: ReturnType<Koffi['load']>;
  try {
    library = koffi.load(path);
  } catch (error) {
    const detail = (error as Error).message;
    throw unavailable({ reason: 'library-missing', library: path, detail }, error);
  }

  const scratch = createNativeScratch(koffi);
  const { bindings, missing } = bindEntryPoints(koffi, library);
  if (missing.length > 0) {
    throw unavailable({ reason: 'entry-point-missing', library: path, detail: missing.join(', ') });
  }
  const describe = describeWith(koffi, bindings, scratch.address, scratch.u64);
  const check = createErrorCheck(describe);

  const initResult = bindings.cuInit(0);
  if (initResult !== 0) throw initFailure(path, cudaError(describe, initResult, 'cuInit'));

  check(bindings.cuDriverGetVersion(scratch.address), 'cuDriverGetVersion');
  const driverVersion = scratch.i32[0]!;
  if (driverVersion < MINIMUM_DRIVER_VERSION) {
    throw unavailable({
      reason: 'driver-too-old',
      library: path,
      detail: String(driverVersion),
      driverVersion,
    });
  }
  keepChosenForms(bindings, driverVersion, legacy);
  if (!bindings.cuMemAdvise_v2 && !bindings.cuMemAdvise) {
    throw unavailable({ reason: 'entry-point-missing', library: path, detail: 'cuMemAdvise' });
  }
  if (!bindings.cuMemPrefetchAsync_v2 && !bindings.cuMemPrefetchAsync) {
    throw unavailable({ reason: 'entry-point-missing', library: path, detail: 'cuMemPrefetchAsync' });
  }
  if (!bindings.cuEventElapsedTime_v2 && !bindings.cuEventElapsedTime) {
    throw unavailable({ reason: 'entry-point-missing', library: path, detail: 'cuEventElapsedTime' });
  }

  return {
    koffi,
    library,
    native: bindings,
    check,
    describe,
    driverVersion,
    legacy,
    capabilities: driverCapabilities(bindings, driverVersion, legacy),
    scratch,
    devices: [],
    libraryPath: path,
  };
}

function describeWith(
  koffi: Koffi,
  bindings: Bindings,
  address: number,
  u64: BigUint64Array,
): DescribeResult {
  const read = (fn: Bindings['cuGetErrorName'], code: number): string | undefined => {
    u64[0] = 0n;
    if (fn(code, address) !== 0 || u64[0] === 0n) return undefined;
    return koffi.decode(u64, 'const char *') as string;
  };
  return (code) => ({
    name: read(bindings.cuGetErrorName, code),
    description: read(bindings.cuGetErrorString, code),
  });
}

function initFailure(path: string, error: CudaError): DriverUnavailableError {
  const reason =
    error.code === CUDA_ERROR_NO_DEVICE
      ? 'no-device'
      : error.code === CUDA_ERROR_STUB_LIBRARY
        ? 'library-missing'
        : 'init-failed';
  // The napi adapter's detail: the call and the CUresult's name and description.
  const detail = `cuInit failed: ${error.codeName} (${error.code})${error.description ? `: ${error.description}` : ''}`;
  return unavailable({ reason, library: path, detail }, error);
}
