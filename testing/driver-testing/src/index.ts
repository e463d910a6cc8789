export { type ConformanceOptions, driverConformanceSuite } from './conformance/index.js';
export { offlineDriverCases } from './conformance/offline.js';
export { countingDriver, type DriverCallLog } from './counting-driver.js';
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
export { createReferenceDriver, type ReferenceDriverOptions } from './reference-driver.js';
export { expectOnlyTypedErrors, isTypedError } from './typed-errors.js';
