export { type ConformanceOptions, driverConformanceSuite } from './conformance/index.js';
export { countingDriver, type DriverCallLog } from './counting-driver.js';
export {
  type AdapterFactories,
  describeEachDriver,
  driverMatrix,
  gpuRequired,
  type TestDriver,
} from './driver-matrix.js';
export { type EntryPoint, entryPointsOf } from './entry-points.js';
export { createReferenceDriver, type ReferenceDriverOptions } from './reference-driver.js';
export { expectOnlyTypedErrors, isTypedError } from './typed-errors.js';
