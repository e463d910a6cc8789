// What both adapters' `createDriver(options?)` accept: one rule, so that a malformed option is
// refused alike (a TypeError at creation, before anything native is touched) whichever adapter
// the program picked.
import { checkOptions, type DriverOptions, describeValue } from '@cumem/core-types';
import { DEFAULT_DRIVER_LIBRARY } from './unavailable-message.js';

/** `createDriver`'s options, checked, with their defaults. */
export interface CheckedDriverOptions {
  /** The library to load: `options.libraryPath`, or `'libcuda.so.1'`. */
  readonly libraryPath: string;
  /** `entryPoints: 'legacy'`: the CUDA 12.0 forms. */
  readonly legacy: boolean;
}

/**
 * @throws TypeError when `options` is neither undefined nor an object, `entryPoints` is neither
 *   `'auto'` nor `'legacy'`, or `libraryPath` is not a non-empty string.
 */
export function checkDriverOptions(options: DriverOptions | undefined): CheckedDriverOptions {
  const { entryPoints = 'auto', libraryPath = DEFAULT_DRIVER_LIBRARY } = checkOptions(options);
  if (entryPoints !== 'auto' && entryPoints !== 'legacy') {
    throw new TypeError(`options.entryPoints must be 'auto' or 'legacy', got ${describeValue(entryPoints)}`);
  }
  if (typeof libraryPath !== 'string' || libraryPath.length === 0) {
    throw new TypeError(`options.libraryPath must be a non-empty string, got ${describeValue(libraryPath)}`);
  }
  return { libraryPath, legacy: entryPoints === 'legacy' };
}
