// The shared conformance suite, once per entry-point mode. Without a GPU its blocks skip with
// the reason in their names (and fail under CUMEM_REQUIRE_GPU=1).
import { driverConformanceSuite } from '@cumem/testing/vitest';
import { createDriver } from './index.js';

driverConformanceSuite('ffi', createDriver);
driverConformanceSuite(
  'ffi, legacy entry points',
  (options) => createDriver({ ...options, entryPoints: 'legacy' }),
  { entryPoints: 'legacy' },
);
