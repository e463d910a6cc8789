// Opens libcuda, initialises it and binds the table. Runs on the first member that needs the
// driver; any failure is a DriverUnavailableError whose message says what was tried and what to do.

import { type CudaError, DriverUnavailableError } from '@cumem/core-types';
import type { Bindings } from './bindings.js';
import { driverCapabilities } from './driver-capabilities.js';
import type { DriverState } from './driver-state.js';
import { bindEntryPoints } from './entry-point-binder.js';
import { createErrorCheck, cudaError, type DescribeResult } from './error-check.js';
import { type Koffi, loadKoffi } from './koffi-module.js';
import { createNativeScratch } from './native-scratch.js';

/** The library the system loader finds when no path is given. */
export const DEFAULT_LIBRARY = 'libcuda.so.1';

/** Oldest driver cumem supports: the "legacy" entry points are the CUDA 12.0 forms. */
export const MINIMUM_DRIVER_VERSION = 12000;

const CUDA_ERROR_STUB_LIBRARY = 34;
const CUDA_ERROR_NO_DEVICE = 100;

/** Loads, initialises and binds the driver. Throws DriverUnavailableError. */
export function loadDriver(libraryPath: string | undefined, legacy: boolean): DriverState {
  const path = libraryPath ?? DEFAULT_LIBRARY;
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
    throw new DriverUnavailableError('library-missing', libraryMissingMessage(path, libraryPath, error), {
      cause: error,
    });
  }

  const scratch = createNativeScratch(koffi);
  const { bindings, missing } = bindEntryPoints(koffi, library);
  if (missing.length > 0) {
    throw new DriverUnavailableError(
      'entry-point-missing',
      `'${path}' loaded but lacks the CUDA driver entry point(s) ${missing.join(', ')}: it is not a CUDA ` +
        'driver library, or a driver older than CUDA 12.0. Install a current NVIDIA driver.',
    );
  }
  const describe = describeWith(koffi, bindings, scratch.address, scratch.u64);
  const check = createErrorCheck(describe);

  const initResult = bindings.cuInit(0);
  if (initResult !== 0) throw initFailure(path, cudaError(describe, initResult, 'cuInit'));

  check(bindings.cuDriverGetVersion(scratch.address), 'cuDriverGetVersion');
  const driverVersion = scratch.i32[0]!;
  if (driverVersion < MINIMUM_DRIVER_VERSION) {
    throw new DriverUnavailableError(
      'driver-too-old',
      `The CUDA driver in '${path}' supports CUDA ${formatVersion(driverVersion)}; cumem needs CUDA ` +
        `${formatVersion(MINIMUM_DRIVER_VERSION)} or newer. Update the NVIDIA driver.`,
    );
  }
  if (!bindings.cuMemAdvise_v2 && !bindings.cuMemAdvise) {
    throw new DriverUnavailableError(
      'entry-point-missing',
      `'${path}' has neither cuMemAdvise nor cuMemAdvise_v2.`,
    );
  }
  if (!bindings.cuEventElapsedTime_v2 && !bindings.cuEventElapsedTime) {
    throw new DriverUnavailableError('entry-point-missing', `'${path}' lacks cuEventElapsedTime.`);
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

/** `13000` -> `'13.0'`. */
export function formatVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
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

function libraryMissingMessage(path: string, given: string | undefined, error: unknown): string {
  const reason = (error as Error).message;
  const tried = given
    ? `the path you gave (${given})`
    : `'${DEFAULT_LIBRARY}' through the system loader (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib)`;
  return [
    `Cannot load the CUDA driver library '${path}': ${reason}`,
    `Tried: ${tried}.`,
    'Possible solutions:',
    '- Install the NVIDIA GPU driver; it provides libcuda.so.1 (the CUDA toolkit alone does not).',
    '- In a container, start it with GPU access (NVIDIA Container Toolkit: `docker run --gpus all`).',
    '- If the driver lives in a non-standard directory, add it to LD_LIBRARY_PATH or pass ' +
      "createDriver({ libraryPath: '/path/to/libcuda.so.1' }).",
    "- Do not point at the toolkit's stubs/libcuda.so: it is for linking only.",
  ].join('\n');
}

function initFailure(path: string, error: CudaError): DriverUnavailableError {
  if (error.code === CUDA_ERROR_NO_DEVICE) {
    return new DriverUnavailableError(
      'no-device',
      `cuInit found no CUDA device (${error.codeName}). Check that \`nvidia-smi\` lists a GPU, that ` +
        'CUDA_VISIBLE_DEVICES does not hide them all, and that a container was started with GPU access.',
      { cause: error },
    );
  }
  if (error.code === CUDA_ERROR_STUB_LIBRARY) {
    return new DriverUnavailableError(
      'library-missing',
      `'${path}' is the CUDA toolkit's stub library (${error.codeName}), which cannot run programs. Install ` +
        'the NVIDIA driver, and make sure the stubs directory is not on LD_LIBRARY_PATH.',
      { cause: error },
    );
  }
  return new DriverUnavailableError(
    'init-failed',
    `cuInit(0) failed in '${path}': ${error.message}. Check \`nvidia-smi\`; a driver/kernel-module version ` +
      'mismatch needs a reboot or a driver reinstall.',
    { cause: error },
  );
}
