import type { DriverUnavailableReason } from '@cumem/core-types';

/** Formats a driver version such as 12080 as `12.8`. */
export function formatDriverVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}

/**
 * The message of the DriverUnavailableError for a failed load: what went wrong, then the
 * "Possible solutions" that fix it.
 * @param detail what the loader saw (the dlerror text, the missing symbols, the cuInit error).
 */
export function unavailableMessage(
  reason: DriverUnavailableReason,
  detail: string,
  libraryPath: string,
  driverVersion: number,
): string {
  const lines = (problem: string, solutions: string[]) =>
    [problem, 'Possible solutions:', ...solutions.map((solution) => `- ${solution}`)].join('\n');
  switch (reason) {
    case 'library-missing':
      return lines(`The CUDA driver library '${libraryPath}' could not be loaded: ${detail}`, [
        'Install the NVIDIA driver for your GPU; it provides libcuda.so.1.',
        'If the driver lives in a non-standard directory, add it to LD_LIBRARY_PATH or pass createDriver({ libraryPath }).',
        'In a container, start it with GPU access (NVIDIA Container Toolkit, e.g. docker run --gpus all).',
      ]);
    case 'no-device':
      return lines(`The CUDA driver '${libraryPath}' loaded but found no CUDA device (${detail}).`, [
        'Check that a GPU is present and visible: run nvidia-smi.',
        'Check CUDA_VISIBLE_DEVICES: an empty or wrong value hides every device.',
      ]);
    case 'driver-too-old':
      return lines(
        `The CUDA driver '${libraryPath}' is version ${formatDriverVersion(driverVersion)}; @cumem/driver-napi needs 12.0 or newer.`,
        ['Update the NVIDIA driver to one that supports CUDA 12.0 or newer.'],
      );
    case 'entry-point-missing':
      return lines(`The CUDA driver '${libraryPath}' lacks entry points cumem needs: ${detail}.`, [
        'Update the NVIDIA driver.',
        'Check that libraryPath points to the real libcuda.so.1, not a stub from the CUDA toolkit.',
      ]);
    default:
      return lines(`The CUDA driver '${libraryPath}' failed to initialize: ${detail}`, [
        'Check that the NVIDIA kernel module is loaded and matches the driver library (nvidia-smi).',
        'Check the process can open /dev/nvidia* (permissions, container device mounts).',
      ]);
  }
}
