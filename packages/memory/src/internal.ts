// @cumem/memory/internal: what only cumem's own packages (@cumem/utils, @cumem/interop-arrow,
// @cumem/compute), their tests, the crash suite and the bench need from @cumem/memory. It is
// not public API: it is left out of the API report and the API docs, and carries no semver
// promise (a minor or patch release may change or remove any of it). Programs use the package
// root, '@cumem/memory'.

export { closeBuffer, hostViewOf, ipcDescriptorOf } from './buffer.js';
export { bufferToDLPack } from './buffer-base.js';
// What a Buffer is, from its private state: the packages above read a buffer through these, never
// through its getters and methods, which a program can answer for with own properties or another
// prototype (buffer-base.ts). bufferGroup is the per-element fact of @cumem/utils' batch checks.
export {
  bufferAllocationStream,
  bufferByteSize,
  bufferDeviceId,
  bufferDriver,
  bufferGroup,
  bufferIsClosed,
  bufferIsDeviceAccessible,
  bufferIsDeviceOnly,
  bufferIsHostAccessible,
  bufferIsManaged,
  bufferMemoryOwner,
  bufferOwner,
  bufferParent,
  bufferPointer,
  bufferResource,
  bufferRuntime,
  bufferTypeName,
  checkBufferOpen,
} from './buffer-facts.js';
// How bytes move, for @cumem/utils' copyBatch and strided copies and @cumem/interop-arrow's
// HostBuffer. copyDeviceRanges and issueCopy are unsafe by nature (see their TSDoc).
export {
  type CopyShape,
  type CopySide,
  copyDeviceRanges,
  type DeviceRangeCalls,
  type DeviceRanges,
  hostViewWrapper,
  issueCopy,
  sharedHostResource,
  wrapHostView,
} from './copy-internals.js';
export { makeDeviceCurrent } from './device-queries.js';
// The DLPack struct layout, shared with @cumem/utils' importer and the tests that write hostile
// structs (the public surface is DLPackCapsule and StridedMemoryView.fromDLPack).
export {
  DLDeviceType,
  DLPACK_FLAG_READ_ONLY,
  type DLPackTensorFields,
  dlpackStructSize,
  LegacyField,
  TensorField,
  VersionedField,
  writeDLPackStruct,
} from './dlpack-struct.js';
export { isRegisteredHostMemory } from './host-registration.js';
export { noteKernelUse } from './kernel-use.js';
// The per-range managed-memory calls, shared with @cumem/utils' advise / prefetch / discard.
export {
  adviseRange,
  type CheckedAdvice,
  checkDiscardSupported,
  checkManagedAdvice,
  discardPrefetchRange,
  discardRange,
  prefetchRange,
} from './managed-range.js';
// Built-in memory resources (interop-arrow's context resources too) freeze themselves this way.
export { freezeBuiltIn } from './memory-resource.js';
export { bindStreamDriver, driverOf } from './object-driver.js';
// Copies between devices for @cumem/utils and @cumem/interop-arrow. copyBetweenDevices is unsafe
// by nature: it checks nothing about its raw pointers (see its TSDoc).
export { bufferReachableOn, copyBetweenDevices, reachableOn } from './peer-copy.js';
// The one rule for a size claimed from outside (IPC bytes, fromHandle sizes).
export { allocationRange, rangeOverrun } from './pointer-range.js';
// Downloads read piece by piece as they arrive (@cumem/interop-arrow's pipelined tableFromDevice).
export { type QueuedDownload, queueDownload } from './queued-download.js';
// Uploads started before the rest of a call is known (@cumem/interop-arrow's tableToDevice).
export { queueUpload, waitForQueuedUploads } from './queued-upload.js';
export { stagingSettings } from './staging-settings.js';
// A stream argument's check by brand, not prototype (Stream.isStream).
export { isStream } from './stream.js';
