import type { CreateDriver, Driver, DriverOptions } from '@cumem/core-types';
import { assembleDriver, bindMembers, checkDriverOptions } from '@cumem/driver-kit';
import { FfiDriver } from './ffi-driver.js';

/**
 * The cumem Driver contract over `libcuda.so.1` through koffi. Creating it touches nothing
 * native: the library is loaded, `cuInit(0)` called and every entry point bound on first use.
 *
 * @param options `entryPoints` (default `'auto'`: the newest form of each entry point the driver
 *   has; `'legacy'`: the CUDA 12.0 forms) and `libraryPath` (default `'libcuda.so.1'`).
 * @throws TypeError when `options` is not an object or has a wrong-typed field (as the N-API
 *   adapter). Nothing else: the first member that needs the driver throws
 *   `DriverUnavailableError` when it cannot be loaded, and every later one throws the same error.
 */
export const createDriver: CreateDriver = (options?: DriverOptions): Driver => {
  // The same shape as the N-API adapter's: a frozen object of bound members (driver-kit).
  const driver = new FfiDriver(checkDriverOptions(options));
  return assembleDriver(bindMembers(driver), {
    get driverVersion() {
      return driver.driverVersion;
    },
    get capabilities() {
      return driver.capabilities;
    },
  });
};
