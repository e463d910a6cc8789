// One wording for each way loading the CUDA driver can fail, used by both adapters, so the same
// failure reads the same whichever adapter met it: what went wrong, then "Possible solutions".
import { type DriverUnavailableReason, formatCudaVersion } from '@cumem/core-types';

/** What an adapter saw when loading `libcuda.so.1` failed; {@link driverUnavailableMessage} words it. */
export interface DriverLoadFailure {
  /** The kind of failure (also `DriverUnavailableError.reason`). */
  readonly reason: Exclude<DriverUnavailableReason, 'no-adapter'>;
  /** The library that was loaded or tried, e.g. `'libcuda.so.1'`. */
  readonly library: string;
  /**
   * What the loader saw: the dynamic loader's error text (`library-missing`), the missing entry
   * points, comma-separated (`entry-point-missing`), or the failed call and its CUresult name.
   */
  readonly detail: string;
  /** The driver's version, e.g. `12020` (`driver-too-old`). */
  readonly driverVersion?: number;
}

/** The oldest driver cumem runs on: the "legacy" entry points are the CUDA 12.0 forms. */
export const MINIMUM_DRIVER_VERSION = 12000;

/** The driver library loaded when no `libraryPath` is given: the system loader finds it. */
export const DEFAULT_DRIVER_LIBRARY = 'libcuda.so.1';

const lines = (problem: string, solutions: readonly string[]): string =>
  [problem, 'Possible solutions:', ...solutions.map((solution) => `- ${solution}`)].join('\n');

const INSTALL_DRIVER =
  'Install the NVIDIA GPU driver; it provides libcuda.so.1 (the CUDA toolkit alone does not).';
const CONTAINER =
  'In a container, start it with GPU access (NVIDIA Container Toolkit: `docker run --gpus all`).';
const REFERENCE_DRIVER =
  "To develop or test without a GPU, run your code on cumem's reference driver: `npm install --save-dev @cumem/testing`, then `useDriver(createReferenceDriver())` before the first call.";
const WSL2 =
  'On WSL2 the Windows NVIDIA driver provides libcuda.so.1 in /usr/lib/wsl/lib: add that folder to LD_LIBRARY_PATH.';
const NOT_THE_STUB = "Do not point at the CUDA toolkit's stubs/libcuda.so: it is for linking only.";

/** The message of the DriverUnavailableError for `failure`, the same from both adapters. */
export function driverUnavailableMessage(failure: DriverLoadFailure): string {
  const { library, detail } = failure;
  switch (failure.reason) {
    case 'library-missing': {
      if (detail.includes('CUDA_ERROR_STUB_LIBRARY')) {
        return lines(
          `'${library}' is the CUDA toolkit's stub library (${detail}), which cannot run programs.`,
          [
            INSTALL_DRIVER,
            'Take the stubs directory off LD_LIBRARY_PATH, or pass the real libcuda.so.1 as libraryPath.',
          ],
        );
      }
      const tried =
        library !== DEFAULT_DRIVER_LIBRARY
          ? `the path you gave (${library})`
          : `'${library}' through the system loader (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib)`;
      return lines(`The CUDA driver library '${library}' could not be loaded: ${detail}\nTried: ${tried}.`, [
        INSTALL_DRIVER,
        CONTAINER,
        "If the driver lives in a non-standard directory, add it to LD_LIBRARY_PATH or pass createDriver({ libraryPath: '/path/to/libcuda.so.1' }).",
        WSL2,
        NOT_THE_STUB,
        REFERENCE_DRIVER,
      ]);
    }
    case 'entry-point-missing':
      return lines(`The CUDA driver library '${library}' lacks entry points cumem needs: ${detail}.`, [
        `Update the NVIDIA driver to one that supports CUDA ${formatCudaVersion(MINIMUM_DRIVER_VERSION)} or newer.`,
        'Check that libraryPath points to the real libcuda.so.1, not another library or a stub.',
      ]);
    case 'no-device':
      return lines(`The CUDA driver '${library}' loaded but found no CUDA device (${detail}).`, [
        'Check that a GPU is present and visible: run nvidia-smi.',
        'Check CUDA_VISIBLE_DEVICES: an empty or wrong value hides every device.',
        CONTAINER,
        REFERENCE_DRIVER,
      ]);
    case 'driver-too-old':
      return lines(
        `The CUDA driver '${library}' supports CUDA ${formatCudaVersion(failure.driverVersion ?? 0)}; cumem needs CUDA ${formatCudaVersion(MINIMUM_DRIVER_VERSION)} or newer.`,
        [
          `Update the NVIDIA driver to one that supports CUDA ${formatCudaVersion(MINIMUM_DRIVER_VERSION)} or newer.`,
        ],
      );
    default:
      return lines(`The CUDA driver '${library}' failed to initialize: ${detail}`, [
        'Check that the NVIDIA kernel module is loaded and matches the driver library (nvidia-smi); a mismatch needs a reboot or a driver reinstall.',
        'Check the process can open /dev/nvidia* (permissions, container device mounts).',
      ]);
  }
}
