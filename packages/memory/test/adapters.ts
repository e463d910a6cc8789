// The real adapters the driver matrix runs the suites against (skipped visibly without a GPU).
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';

export const adapters = { ffi: createFfiDriver, napi: createNapiDriver };
