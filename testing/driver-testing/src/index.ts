export { createReferenceDriver, type ReferenceDriverOptions } from './reference-driver.js';
export { driverConformanceSuite, type ConformanceOptions } from './conformance/index.js';
export {
  type AdapterFactories,
  describeEachDriver,
  driverMatrix,
  gpuRequired,
  type TestDriver,
} from './driver-matrix.js';
export { countingDriver, type DriverCallLog } from './counting-driver.js';
