// Shared by the test files only (not exported from the package).
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';

/** The adapters every test file of this package runs against (besides the reference driver). */
export const adapters = { ffi: createFfiDriver, napi: createNapiDriver };
