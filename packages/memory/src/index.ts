// Re-exported so one import gives the locations and errors the API takes and throws.
export {
  CudaError,
  CudaStateError,
  Device,
  DriverUnavailableError,
  Host,
  isLocation,
  type Location,
  NotSupportedError,
} from '@cumem/core-types';
export { AccessedByView } from './accessed-by-view.js';
export { Buffer, type FromHandleOptions, MemoryResource, ownerMemoryBuffer } from './buffer.js';
export { DeviceMemoryResource, type DeviceMemoryResourceOptions } from './device-memory-resource.js';
export {
  type DeviceProperties,
  deviceCount,
  deviceProperties,
  makeDeviceCurrent,
  memoryInfo,
  setCurrentDevice,
} from './device-queries.js';
export { type AdapterName, currentDriver, useDriver } from './driver-selection.js';
export { Event, type EventOptions } from './event.js';
export type { HostMemory } from './host-memory.js';
export {
  HostRegistration,
  isRegisteredHostMemory,
  type RegisterHostMemoryOptions,
  registerHostMemory,
} from './host-registration.js';
export { IpcAllocationHandle, type IpcAllocationHandleOptions } from './ipc-allocation-handle.js';
export type { IpcBufferDescriptor } from './ipc-descriptor.js';
export { LegacyPinnedMemoryResource } from './legacy-pinned-memory-resource.js';
export { ManagedBuffer } from './managed-buffer.js';
export { ManagedMemoryResource, type ManagedMemoryResourceOptions } from './managed-memory-resource.js';
export { PinnedMemoryResource, type PinnedMemoryResourceOptions } from './pinned-memory-resource.js';
export { type PoolAttributes, PoolMemoryResource } from './pool-memory-resource.js';
export { configureStaging, type StagingSettings, stagingSettings } from './staging-settings.js';
export { defaultStream, Stream, type StreamOptions } from './stream.js';
export type { StreamOrderOptions } from './stream-options.js';
