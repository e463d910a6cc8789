export { formatCudaVersion } from './cuda-version.js';
export { Device } from './device.js';
export type { Driver } from './driver.js';
export {
  type Dimensions,
  type DriverCompute,
  FunctionAttribute,
  type KernelLaunchConfig,
  type KernelParameterInfo,
  LaunchDeviceAttribute,
} from './driver-compute.js';
export * from './driver-constants.js';
export type { DriverNativeExchange } from './driver-native-exchange.js';
export type { DriverPageableMemory } from './driver-pageable-memory.js';
export type { DriverPoolQueries } from './driver-pool-queries.js';
export {
  type CopyEndpoint,
  type CreateDriver,
  type DevicePointer,
  DRIVER_CONTRACT_VERSION,
  type DriverCapabilities,
  type DriverHandle,
  type DriverOptions,
  type EntryPointMode,
  type MemAccessDescriptor,
  type Memcpy2D,
  type Memcpy3D,
  type MemPoolProperties,
  type StagedCopyOptions,
} from './driver-types.js';
export {
  type DriverVirtualMemory,
  MemAllocationGranularity,
  type MemAllocationProperties,
  VirtualMemoryDeviceAttribute,
} from './driver-virtual-memory.js';
export {
  CudaError,
  type CudaErrorOptions,
  CudaStateError,
  DriverUnavailableError,
  type DriverUnavailableReason,
  isCumemError,
  NotSupportedError,
} from './errors.js';
export { Host, type HostOptions } from './host.js';
export { isLocation, type Location, type ManagedAdvice } from './location.js';
export { locationToMemLocation, memLocationToLocation } from './location-conversion.js';
export {
  checkStagedCopyOptions,
  STAGED_COPY_MAX_CHUNK_BYTES,
  STAGED_COPY_MAX_THREADS,
} from './staged-copy.js';
export {
  checkAddress,
  checkBoolean,
  checkInt32,
  checkInteger,
  checkOptions,
  checkSize,
  checkSizeAtMost,
  describeValue,
} from './validate.js';
export {
  memoryByteLength,
  viewBuffer,
  viewByteLength,
  viewByteOffset,
  viewBytes,
} from './view-facts.js';
