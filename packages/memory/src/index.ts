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
export {
  AllocationTracker,
  type TrackAllocationsOptions,
  type TrackedAllocation,
  trackAllocations,
} from './allocation-tracker.js';
export { Buffer, ownerMemoryBuffer } from './buffer.js';
// The one test of a real Buffer (and the brand the packages above give their own classes).
export { BufferBase, bufferBrand } from './buffer-base.js';
export type { FromHandleOptions } from './buffer-options.js';
export { type ByteArrayInterface, byteArrayInterface } from './byte-array-interface.js';
export { currentResource, setCurrentResource } from './current-resource.js';
export { DeviceMemoryResource, type DeviceMemoryResourceOptions } from './device-memory-resource.js';
export {
  type DeviceProperties,
  deviceCount,
  deviceProperties,
  memoryInfo,
  setCurrentDevice,
} from './device-queries.js';
export {
  collectReleasedExports,
  DLPackCapsule,
  type DLPackSource,
  exportDLPack,
  type ToDLPackOptions,
} from './dlpack-capsule.js';
export { type AdapterName, currentDriver, useDriver } from './driver-selection.js';
export { Event, type EventOptions } from './event.js';
export type { HostMemory } from './host-memory.js';
export {
  copyRangesFromHost,
  copyRangesToHost,
  type HostRange,
  type HostRangesOptions,
  type HostStaging,
  type HostStagingBuffer,
} from './host-range-copies.js';
export {
  HostRegistration,
  type RegisterHostMemoryOptions,
  registerHostMemory,
} from './host-registration.js';
export { isBufferHostView } from './host-views.js';
export { IpcAllocationHandle, type IpcAllocationHandleOptions } from './ipc-allocation-handle.js';
export type { IpcBufferDescriptor } from './ipc-descriptor.js';
export { LegacyPinnedMemoryResource } from './legacy-pinned-memory-resource.js';
export { ManagedBuffer } from './managed-buffer.js';
export { ManagedMemoryResource, type ManagedMemoryResourceOptions } from './managed-memory-resource.js';
export { type MemoryReport, memoryReport, type ResourceReport } from './memory-report.js';
export { MemoryResource } from './memory-resource.js';
export { ObjectBrand } from './object-brand.js';
export {
  type OnOutOfMemoryOptions,
  type OutOfMemoryHook,
  type OutOfMemoryInfo,
  type OutOfMemoryRecoveryOptions,
  type OutOfMemoryStatistics,
  onOutOfMemory,
  outOfMemoryStatistics,
  setOutOfMemoryRecovery,
} from './out-of-memory.js';
export { PeerAccessView } from './peer-access-view.js';
export { canAccessPeer, type PeerAttributes, peerAttributes } from './peer-queries.js';
export { PinnedMemoryResource, type PinnedMemoryResourceOptions } from './pinned-memory-resource.js';
export { type PoolAttributes, PoolMemoryResource } from './pool-memory-resource.js';
export {
  finalizerReleases,
  type ResourceStatistics,
  type StatisticsCounter,
} from './resource-pressure.js';
export { configureStaging, type StagingSettings } from './staging-settings.js';
export { defaultStream, Stream, type StreamOptions } from './stream.js';
export type { StreamOrderOptions } from './stream-options.js';
export type { VirtualBufferExport, VirtualIpcDescriptor } from './virtual-ipc.js';
export type { VirtualMemoryAccess, VirtualMemoryResourceOptions } from './virtual-memory-options.js';
export { type ModifyAllocationResult, VirtualMemoryResource } from './virtual-memory-resource.js';
