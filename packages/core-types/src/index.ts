export { formatCudaVersion } from './cuda-version.js';
export { Device } from './device.js';
export type { DriverCapabilities } from './driver/capabilities.js';
export {
  type Dimensions,
  type DriverCompute,
  FunctionAttribute,
  type KernelLaunchConfig,
  type KernelParameterInfo,
  LaunchDeviceAttribute,
} from './driver/compute.js';
export * from './driver/constants.js';
export type { DriverCopies, Memcpy2D, Memcpy3D } from './driver/copies.js';
export type { DriverDevices } from './driver/devices.js';
export {
  type CreateDriver,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  type DriverOptions,
  type EntryPointMode,
} from './driver/driver.js';
export type { DriverInterprocess, DriverNativeExchange } from './driver/exchange.js';
export type { CopyEndpoint, DevicePointer, DriverHandle } from './driver/handles.js';
export type { DriverMemory, DriverPageableMemory, StagedCopyOptions } from './driver/memory.js';
export type {
  DriverPoolQueries,
  DriverPools,
  MemAccessDescriptor,
  MemPoolProperties,
} from './driver/pools.js';
export type { DriverStreams } from './driver/streams.js';
export {
  type DriverVirtualMemory,
  MemAllocationGranularity,
  type MemAllocationProperties,
  VirtualMemoryDeviceAttribute,
} from './driver/vmm.js';
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
export { type BrandedClass, guardMembers, notBranded, wrongReceiver } from './objects/guard-members.js';
export {
  hex,
  inspectCustom,
  type ObjectDescription,
  type ObjectFacts,
  objectDescription,
} from './objects/object-description.js';
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
