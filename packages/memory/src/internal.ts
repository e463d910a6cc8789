// @cumem/memory/internal: what only cumem's own packages (@cumem/utils, @cumem/interop-arrow,
// @cumem/compute), their tests, the crash suite and the bench need from @cumem/memory. It is
// not public API: it is left out of the API report and the API docs, and carries no semver
// promise (a minor or patch release may change or remove any of it). Programs use the package
// root, '@cumem/memory'.

import { bufferReachableOn } from './buffer/buffer-peer-copy.js';
import { hostViewWrapper, wrapHostView } from './buffer/host-views.js';
import { allocationRange, rangeOverrun } from './buffer/pointer-range.js';
import { reachableOn } from './copy/peer-copy.js';
import { queueDownload } from './copy/queued-download.js';
import { queueUpload, waitForQueuedUploads } from './copy/queued-upload.js';
import {
  DLDeviceType,
  DLPACK_FLAG_READ_ONLY,
  dlpackStructSize,
  LegacyField,
  TensorField,
  VersionedField,
  writeDLPackStruct,
} from './interop/dlpack/dlpack-struct.js';
import {
  adviseRange,
  checkDiscardSupported,
  checkManagedAdvice,
  discardPrefetchRange,
  discardRange,
  prefetchRange,
} from './resources/managed/managed-range.js';

// What a Buffer is, from its private state (buffer-state.ts): the packages above read a buffer
// through it, never through its getters and methods, which a program can answer for with own
// properties or another prototype. Its close(), hostView(), ipcDescriptor() and toDLPack() are the
// Buffer's own, whatever a program put on the buffer or its prototype.
export { bufferState } from './buffer/buffer-base.js';
export { noteKernelUse } from './buffer/kernel-use.js';
// How bytes move, for @cumem/utils' copyBatch and strided copies and @cumem/interop-arrow's
// HostBuffer. copyDeviceRanges and issueCopy are unsafe by nature (see their TSDoc).
export {
  copyDeviceRanges,
  issueCopy,
  sharedHostResource,
} from './copy/copy-internals.js';
// Copies between devices for @cumem/utils and @cumem/interop-arrow. copyBetweenDevices is unsafe
// by nature: it checks nothing about its raw pointers (see its TSDoc).
export { copyBetweenDevices } from './copy/peer-copy.js';
// The DLPack struct layout (one format fact, as one object), shared with @cumem/utils' importer
// and the tests that write hostile structs (the public surface is DLPackCapsule and
// StridedMemoryView.fromDLPack); and the per-range managed-memory calls (one object), shared
// with @cumem/utils' advise / prefetch / discard.
/** The DLPack struct layout: field offsets, device types, the read-only flag, its size and writer. */
export const dlpackStruct = Object.freeze({
  DLDeviceType,
  DLPACK_FLAG_READ_ONLY,
  dlpackStructSize,
  LegacyField,
  TensorField,
  VersionedField,
  writeDLPackStruct,
});

/** The managed-memory calls on one range (advise, prefetch, discard) and their checks. */
export const managedRanges = Object.freeze({
  adviseRange,
  checkDiscardSupported,
  checkManagedAdvice,
  discardPrefetchRange,
  discardRange,
  prefetchRange,
});
// Views over a Buffer that readers outside cumem's checks hold by address (@cumem/utils'
// StridedMemoryView): registered so that a resize cannot move or shrink the memory under them,
// and measured against the buffer's size at each use.
export { registerExportAt } from './buffer/export-registry.js';
// Built-in memory resources (interop-arrow's context resources too) freeze themselves this way.
export { freezeBuiltIn } from './buffer/memory-resource.js';
export { checkLiveExtent } from './interop/live-extent.js';
// The Buffer behind a StridedMemoryView whose exportingObject is the producer (a DLPack import):
// @cumem/utils records it, @cumem/compute's launch reads it.
export { viewMemory } from './interop/view-memory.js';
export { makeDeviceCurrent } from './runtime/device-queries.js';
export { bindStreamDriver, driverOf } from './runtime/object-driver.js';
/** An open Stream's device ordinal and CUstream, checked once (compute's launch). */
export { openStreamFacts } from './stream/stream-options.js';

/**
 * The one rule for a size claimed from outside (IPC bytes, fromHandle sizes, array-interface
 * imports): the allocation the driver knows at a pointer, and whether a claim runs past it.
 */
export const allocationRanges = Object.freeze({ allocationRange, rangeOverrun });

/**
 * Whether a stream's device reaches memory (a pointer of a device, or a Buffer) without a copy
 * through the host: @cumem/utils' cross-device copies and @cumem/compute's launches ask it.
 */
export const reachability = Object.freeze({ reachableOn, bufferReachableOn });

/**
 * The object a package above presents a Buffer's host view as (@cumem/interop-arrow's
 * HostBuffer): recorded for the view, and found again from it.
 */
export const hostViewWrappers = Object.freeze({ wrapHostView, hostViewWrapper });

/**
 * Copies queued before the rest of a call is known (@cumem/interop-arrow): the uploads of
 * tableToDevice and the wait for them, and the downloads of a pipelined read.
 */
export const queuedTransfers = Object.freeze({ queueUpload, waitForQueuedUploads, queueDownload });
