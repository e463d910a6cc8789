// The real adapters every driver matrix of the tests runs against (besides the reference
// driver); a case without a GPU skips visibly. One map, so a third adapter is added once.
import type { CreateDriver } from '@cumem/core-types';
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';

/** The GPU adapters by name: `createDriver` of `@cumem/driver-ffi` and `@cumem/driver-napi`. */
export const adapters: Readonly<Record<'ffi' | 'napi', CreateDriver>> = {
  ffi: createFfiDriver,
  napi: createNapiDriver,
};
