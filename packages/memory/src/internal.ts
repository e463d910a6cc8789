// @cumem/memory/internal: what only cumem's own packages (@cumem/utils, @cumem/interop-arrow,
// @cumem/compute), their tests, the crash suite and the bench need from @cumem/memory. It is
// not public API: it is left out of the API report and the API docs, and carries no semver
// promise (a minor or patch release may change or remove any of it). Programs use the package
// root, '@cumem/memory'.

export { closeBuffer, hostViewOf, ipcDescriptorOf } from './buffer/buffer.js';
export { bufferToDLPack } from './buffer/buffer-base.js';
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
} from './buffer/buffer-facts.js';
export { noteKernelUse } from './buffer/kernel-use.js';
// The one rule for a size claimed from outside (IPC bytes, fromHandle sizes).
export { allocationRange, rangeOverrun } from './buffer/pointer-range.js';
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
} from './copy/copy-internals.js';
export { isRegisteredHostMemory } from './copy/host-registration.js';
// Copies between devices for @cumem/utils and @cumem/interop-arrow. copyBetweenDevices is unsafe
// by nature: it checks nothing about its raw pointers (see its TSDoc).
export { bufferReachableOn, copyBetweenDevices, reachableOn } from './copy/peer-copy.js';
// Downloads read piece by piece as they arrive (@cumem/interop-arrow's pipelined tableFromDevice).
export { type QueuedDownload, queueDownload } from './copy/queued-download.js';
// Uploads started before the rest of a call is known (@cumem/interop-arrow's tableToDevice).
export { queueUpload, waitForQueuedUploads } from './copy/queued-upload.js';
export { stagingSettings } from './copy/staging-settings.js';
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
} from './interop/dlpack/dlpack-struct.js';
// The per-range managed-memory calls, shared with @cumem/utils' advise / prefetch / discard.
export {
  adviseRange,
  type CheckedAdvice,
  checkDiscardSupported,
  checkManagedAdvice,
  discardPrefetchRange,
  discardRange,
  prefetchRange,
} from './resources/managed/managed-range.js';
// Built-in memory resources (interop-arrow's context resources too) freeze themselves this way.
export { freezeBuiltIn } from './resources/memory-resource.js';
export { makeDeviceCurrent } from './runtime/device-queries.js';
export { bindStreamDriver, driverOf } from './runtime/object-driver.js';
// A stream argument's check by brand, not prototype (Stream.isStream).
export { isStream } from './stream/stream.js';
