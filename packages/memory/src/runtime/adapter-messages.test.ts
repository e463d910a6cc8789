// Both adapters word the same failure the same way (core-types' driverUnavailableMessage): only
// the dynamic loader's own text, quoted in the first line, may differ between them.
import { DriverUnavailableError } from '@cumem/core-types';
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';
import { describe, expect, it } from 'vitest';

function failure(load: () => unknown): DriverUnavailableError {
  try {
    load();
  } catch (error) {
    if (error instanceof DriverUnavailableError) return error;
    throw error;
  }
  throw new Error('expected a DriverUnavailableError');
}

const libraryPath = '/nonexistent/cumem-test/libcuda.so.1';
const napi = failure(() => createNapiDriver({ libraryPath }).deviceGetCount());
// 'no-adapter': the addon itself is missing, so there is no driver failure to compare.
const addonBuilt = napi.reason !== 'no-adapter';

describe('driver load failures', () => {
  it.skipIf(!addonBuilt)(
    `read the same from both adapters${addonBuilt ? '' : ' (skipped: not applicable: the N-API addon is not built)'}`,
    () => {
      const ffi = failure(() => createFfiDriver({ libraryPath }).deviceGetCount());
      expect(napi.reason).toBe('library-missing');
      expect(ffi.reason).toBe(napi.reason);
      // The loader's text ends the first line; everything else is cumem's and must be equal.
      const withoutLoaderText = (message: string) =>
        message.replace(/could not be loaded: .*$/m, 'could not be loaded: <loader>');
      expect(withoutLoaderText(ffi.message)).toBe(withoutLoaderText(napi.message));
      expect(napi.message).toContain(`Tried: the path you gave (${libraryPath}).`);
      expect(napi.message).toContain('Possible solutions:');
    },
  );
});
