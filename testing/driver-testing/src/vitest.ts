/**
 * `@cumem/testing/vitest`: the vitest helpers cumem's own tests use, for adapter authors and
 * projects that run one test file against every driver: `describeEachDriver` (the reference
 * driver always, the real adapters where a GPU is present, skipped visibly otherwise), the
 * shared driver conformance suite and GPU gating. Needs `vitest` (a peer dependency).
 * @packageDocumentation
 */

export { type ConformanceOptions, driverConformanceSuite } from './conformance/index.js';
export { offlineDriverCases } from './conformance/offline.js';
export { describeGated, probeDriver } from './driver-gate.js';
export {
  type AdapterFactories,
  describeEachDriver,
  describeEachDriverWithDevices,
  driverMatrix,
  gpuRequired,
  type TestDriver,
} from './driver-matrix.js';
export { type EntryPoint, entryPointsOf } from './entry-points.js';
export * from './index.js';
