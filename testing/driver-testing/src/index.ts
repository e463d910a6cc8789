/**
 * `@cumem/testing`: test your cumem code without a GPU. The reference driver implements the
 * whole `Driver` contract in host memory (fake devices, pools, streams, managed memory, the
 * driver's error codes); pass it to `useDriver()` of `@cumem/memory`. `countingDriver` wraps a
 * driver and records which members reach it. Nothing here imports a test framework: the
 * vitest helpers (`describeEachDriver`, the conformance suite) are in `@cumem/testing/vitest`.
 * @packageDocumentation
 */
export { countingDriver, type DriverCallLog } from './counting-driver.js';
export { referenceKernelsPTX } from './reference/builtin-kernels-ptx.js';
export { referenceNativeFunction } from './reference/reference-native-exchange.js';
export { createReferenceDriver, type ReferenceDriverOptions } from './reference-driver.js';
export { type DeviceClock, type DeviceCostModel, timedDriver } from './timed-driver.js';
export { expectOnlyTypedErrors, isTypedError } from './typed-errors.js';
