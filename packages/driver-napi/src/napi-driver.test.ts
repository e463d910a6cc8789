import { driverConformanceSuite } from '@cumem/testing/vitest';
import { createDriver } from './index.js';

// The shared suite, case for case with the FFI adapter; skipped (visibly) without a GPU.
driverConformanceSuite('napi', createDriver);
driverConformanceSuite(
  'napi, legacy entry points',
  (options) => createDriver({ ...options, entryPoints: 'legacy' }),
  { entryPoints: 'legacy' },
);
