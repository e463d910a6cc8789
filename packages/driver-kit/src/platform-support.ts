// The CUDA adapters (napi, ffi) load libcuda.so.1 and so run on Linux only; the pure-JS packages
// install everywhere, so code written on a laptop imports fine and fails, when it reaches the
// driver, with this one typed error that names the platform and the way to work there.
import { DriverUnavailableError } from '@cumem/core-types';

/** The platforms the CUDA adapters run on (`process.platform` values). */
export const SUPPORTED_DRIVER_PLATFORMS: readonly string[] = ['linux'];

/**
 * The DriverUnavailableError (reason `'library-missing'`) an adapter throws before loading
 * anything on a platform other than Linux, naming this platform and the alternatives; undefined
 * on Linux. `platform` defaults to `process.platform`.
 */
export function unsupportedPlatformError(
  adapter: string,
  platform: string = process.platform,
): DriverUnavailableError | undefined {
  if (SUPPORTED_DRIVER_PLATFORMS.includes(platform)) return undefined;
  return new DriverUnavailableError(
    'library-missing',
    `The ${adapter} adapter runs on Linux only (libcuda.so.1); this is ${platform}-${process.arch}.\n` +
      'Possible solutions:\n' +
      "- Write and unit-test cumem code here on the reference driver: useDriver(createReferenceDriver()) from '@cumem/testing'.\n" +
      '- Run on a Linux machine (or WSL 2) with an NVIDIA GPU and driver.',
  );
}
