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
export { Buffer, type FromHandleOptions, ownerMemoryBuffer } from './buffer/buffer.js';
// The one test of a real Buffer (and the brand the packages above give their own classes).
export { BufferBase, bufferBrand } from './buffer/buffer-base.js';
export { isBufferHostView } from './buffer/host-views.js';
export { MemoryResource } from './buffer/memory-resource.js';
export type { HostMemory } from './copy/host-memory.js';
export {
  copyRangesFromHost,
  copyRangesToHost,
  type HostRange,
  type HostRangesOptions,
  type HostStaging,
  type HostStagingBuffer,
} from './copy/host-range-copies.js';
export {
  HostRegistration,
  type RegisterHostMemoryOptions,
  registerHostMemory,
} from './copy/host-registration.js';
export { configureStaging, type StagingSettings } from './copy/staging-settings.js';
export {
  AllocationTracker,
  type TrackAllocationsOptions,
  type TrackedAllocation,
  trackAllocations,
} from './diagnostics/allocation-tracker.js';
export { type MemoryReport, memoryReport, type ResourceReport } from './diagnostics/memory-report.js';
export {
  type OnOutOfMemoryOptions,
  type OutOfMemoryHook,
  type OutOfMemoryInfo,
  type OutOfMemoryRecoveryOptions,
  type OutOfMemoryStatistics,
  onOutOfMemory,
  outOfMemoryStatistics,
  setOutOfMemoryRecovery,
} from './diagnostics/out-of-memory.js';
export {
  finalizerReleases,
  type ResourceStatistics,
  type StatisticsCounter,
} from './diagnostics/resource-pressure.js';
export { byteArrayInterface } from './interop/byte-array-export.js';
export type { ByteArrayInterface } from './interop/byte-array-interface.js';
export {
  collectReleasedExports,
  DLPackCapsule,
  type ToDLPackOptions,
} from './interop/dlpack/dlpack-capsule.js';
export { type DLPackSource, exportDLPack } from './interop/dlpack/dlpack-export.js';
export { IpcAllocationHandle, type IpcAllocationHandleOptions } from './interop/ipc/ipc-allocation-handle.js';
export type { IpcBufferDescriptor } from './interop/ipc/ipc-descriptor.js';
export { currentResource, setCurrentResource } from './resources/current-resource.js';
export {
  DeviceMemoryResource,
  type DeviceMemoryResourceOptions,
} from './resources/device-memory-resource.js';
export { LegacyPinnedMemoryResource } from './resources/legacy-pinned-memory-resource.js';
export type { LiveSetView } from './resources/live-set-view.js';
export { AccessedByView } from './resources/managed/accessed-by-view.js';
export { ManagedBuffer } from './resources/managed/managed-buffer.js';
export {
  ManagedMemoryResource,
  type ManagedMemoryResourceOptions,
} from './resources/managed/managed-memory-resource.js';
export { PeerAccessView } from './resources/peer-access-view.js';
export {
  PinnedMemoryResource,
  type PinnedMemoryResourceOptions,
} from './resources/pinned-memory-resource.js';
export { type PoolAttributes, PoolMemoryResource } from './resources/pool/pool-memory-resource.js';
export type { VirtualBufferExport, VirtualIpcDescriptor } from './resources/virtual/virtual-ipc.js';
export type {
  VirtualMemoryAccess,
  VirtualMemoryResourceOptions,
} from './resources/virtual/virtual-memory-options.js';
export {
  type ModifyAllocationResult,
  VirtualMemoryResource,
} from './resources/virtual/virtual-memory-resource.js';
export {
  type DeviceProperties,
  deviceCount,
  deviceProperties,
  memoryInfo,
  setCurrentDevice,
} from './runtime/device-queries.js';
export { type AdapterName, currentDriver, useDriver } from './runtime/driver-selection.js';
export { ObjectBrand } from './runtime/object-brand.js';
export { canAccessPeer, type PeerAttributes, peerAttributes } from './runtime/peer-queries.js';
export { Event, type EventOptions } from './stream/event.js';
export { defaultStream, Stream, type StreamOptions } from './stream/stream.js';
export type { StreamOrderOptions } from './stream/stream-options.js';
