// The real adapters the hand-off suites run against (GPU only; skipped visibly without one).
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';

export const adapters = { ffi: createFfiDriver, napi: createNapiDriver };
