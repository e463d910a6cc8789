// What a buffer is: its memory, its owner chain, whether it is closed, and how the memory can
// be reached. Buffer (buffer.ts) adds what a buffer does; the split keeps each file small. The
// facts themselves are read in buffer-facts.ts, for every module of cumem.
import type { CudaStateError } from '@cumem/core-types';
import { noteFinalizerRelease } from '../diagnostics/resource-pressure.js';
import { type ByteArrayInterface, byteArrayInterface } from '../interop/byte-array-interface.js';
import { type DLPackCapsule, exportDLPack, type ToDLPackOptions } from '../interop/dlpack/dlpack-capsule.js';
import { type MemoryResource, releaseBufferMemory } from '../resources/memory-resource.js';
import { type DriverRuntime, foreignDriverError } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import {
  bufferBrand,
  bufferDeviceId,
  bufferIsClosed,
  bufferIsDeviceAccessible,
  bufferIsHostAccessible,
  bufferIsManaged,
  bufferTypeName,
} from './buffer-facts.js';
import { type BufferParts, bufferToken, closedFlag, followsOwner, owns, registered } from './buffer-parts.js';
import { setDeferredReleaseHooks } from './buffer-release.js';
import { type BufferOrigin, BufferState } from './buffer-state.js';
import { orderForDroppedBuffer } from './dropped-buffer-order.js';
import { keepOwnerAlive, trackView } from './host-views.js';
import { liveAllocationsOf } from './live-allocations.js';

// The brand and the owner symbol are public through this module (index.ts).
export { bufferBrand, ownerMemoryBuffer } from './buffer-facts.js';
// The writer of a resized buffer's size, for virtual-resize.ts.
export { setResizedByteSize } from './buffer-state.js';

// The readers of the private facts (buffer-state.ts), as constants of this module.
const { has: hasBufferState, runtime: runtimeOf, pointer: pointerOf, byteSize: byteSizeOf } = BufferState;
const { resource: resourceOf, allocationStream: allocationStreamOf } = BufferState;
const { ownerObject: ownerObjectOf, flags: flagsOf, addFlags, setReleaseRecord } = BufferState;

/** @internal A buffer's host views and finalizer record (private facts), also for buffer.ts's close(). */
export const {
  views: bufferViews,
  setViews: setBufferViews,
  releaseRecord: bufferReleaseRecord,
} = BufferState;

/**
 * @internal Marks `buffer` closed, for good (no function clears a flag), for buffer.ts's close().
 * Not a method: a program calling it on an open buffer would keep close() and the finalizer from
 * ever freeing the memory.
 */
export function markBufferClosed(buffer: BufferBase): void {
  addFlags(buffer, closedFlag);
}

/**
 * The state and accessors every `Buffer` and `ManagedBuffer` share: the type of
 * {@link bufferBrand}'s values. Not constructible on its own; buffers come from memory resources
 * and `Buffer.fromHandle`. Its getters are for programs: what the memory is (pointer, size,
 * owner) lives in private fields that no JavaScript can rewrite, and cumem itself reads those.
 */
export abstract class BufferBase {
  // What the memory is lives in private fields (buffer-state.ts), its host views and finalizer
  // record included: no JavaScript can rewrite it (issue 21). cumem reads it through
  // buffer-facts.ts, never through these getters, which an own property of the instance or
  // another prototype could answer for (the buffer is an ordinary, extensible object: making
  // each one non-extensible cost ~25 ns of every allocate, issue 26). No instance fields
  // (buffer-state.ts says why).

  /**
   * Not for use: a Buffer comes from a memory resource's `allocate`, {@link Buffer.fromHandle}
   * or {@link Buffer.slice}. Called without cumem's private token (`new Buffer()`), it throws a
   * TypeError naming those.
   */
  protected constructor();
  /** @internal */
  protected constructor(...parts: BufferParts);
  // Positional parameters, not `...parts` destructured: no array and no iteration per buffer
  // (allocate + close hot path; bench/js/allocate-close-parts.mjs, `bufferObject`).
  protected constructor(
    token?: symbol,
    runtime?: DriverRuntime,
    handle?: bigint,
    size?: number,
    resource?: MemoryResource | null,
    stream?: Stream,
    flags?: number,
    origin?: BufferOrigin | BufferBase | null,
  ) {
    if (token !== bufferToken) throw BufferBase.#noPublicConstructor(new.target.name);
    new BufferState(
      this,
      runtime as DriverRuntime,
      handle as bigint,
      size as number,
      resource as MemoryResource | null,
      stream,
      flags as number,
      origin as BufferOrigin | BufferBase | null,
    );
  }

  // Keeps the published type nominal (`#private` in the .d.ts) as the fields did; static, since
  // an instance member would give the class a member initializer again (buffer-state.ts).
  static #noPublicConstructor(name: string): TypeError {
    return new TypeError(
      `${name} has no public constructor: use a memory resource's allocate(), Buffer.fromHandle() or slice() to get one`,
    );
  }

  /** Size in bytes. */
  get size(): number {
    return byteSizeOf(this);
  }

  /** The address (a unified-address pointer). */
  get handle(): bigint {
    return pointerOf(this);
  }

  /** The device the memory is on, or -1 for host memory. */
  get deviceId(): number {
    return bufferDeviceId(this);
  }

  /** The resource the memory came from (for slices: the parent's), or null for external memory. */
  get memoryResource(): MemoryResource | null {
    return resourceOf(this);
  }

  /** The object keeping external memory alive (for slices: the parent buffer), or null. */
  get owner(): unknown {
    return ownerObjectOf(this);
  }

  /** The device can use the memory. */
  get isDeviceAccessible(): boolean {
    return bufferIsDeviceAccessible(this);
  }

  /**
   * This buffer for other libraries: CUDA Array Interface v3 of a 1-D uint8 array (camelCase,
   * as `StridedMemoryView.from` of @cumem/utils reads it).
   * @throws CudaStateError when closed.
   */
  get cudaArrayInterface(): ByteArrayInterface {
    return byteArrayInterface(this, pointerOf(this), byteSizeOf(this), false);
  }

  /**
   * This buffer as a 1-D uint8 DLPack tensor for native code (see {@link DLPackCapsule}): the
   * memory stays allocated until the consumer calls the deleter, even if this buffer is closed.
   * @throws CudaStateError when closed; TypeError for bad options.
   */
  toDLPack(options?: ToDLPackOptions): DLPackCapsule {
    const pointer = pointerOf(this);
    const byteSize = byteSizeOf(this);
    const dtype = { code: 1, bits: 8, lanes: 1 };
    const source = { pointer, shape: [byteSize], strides: [1], dtype, readonly: false, keepAlive: undefined };
    return exportDLPack({ ...source, buffer: this, deviceId: bufferDeviceId(this) }, options);
  }

  /** The CPU can read and write the memory (and {@link Buffer.hostView} works). */
  get isHostAccessible(): boolean {
    return bufferIsHostAccessible(this);
  }

  /** The memory is CUDA managed (unified) memory. */
  get isManaged(): boolean {
    return bufferIsManaged(this);
  }

  /** The memory was mapped from another process (IPC). */
  get isMapped(): boolean {
    return resourceOf(this)?.isMapped === true;
  }

  /**
   * True after `close()`, once the buffer this one slices is closed, or once the `owner` given
   * to {@link Buffer.fromHandle} (a Buffer, or any object with a boolean `isClosed`) is closed.
   */
  get isClosed(): boolean {
    return bufferIsClosed(this);
  }

  toString(): string {
    return `${bufferTypeName(this)}(0x${pointerOf(this).toString(16)}, ${byteSizeOf(this)} bytes${bufferIsClosed(this) ? ', closed' : ''})`;
  }
}

/** A view of the buffer's memory keeps it alive; memory it owns detaches the view on close. */
export function recordBufferView(buffer: BufferBase, view: ArrayBuffer): void {
  keepOwnerAlive(view, buffer);
  if ((flagsOf(buffer) & owns) !== 0) setBufferViews(buffer, trackView(bufferViews(buffer), view));
}

/**
 * `other` (a stream, or a buffer to copy from or to), refused when it belongs to another driver
 * than `buffer`: its pointers and handles are not this driver's to use (another libcuda, or
 * state another adapter made).
 */
export function checkBufferSameDriver(buffer: BufferBase, other: Stream | BufferBase, what: string): void {
  // A Stream is frozen: its runtime is its own.
  const runtime = hasBufferState(other) ? runtimeOf(other as BufferBase) : (other as Stream).runtime;
  // The buffer's name only for the error: a string built per call costs more than the test.
  if (runtime !== runtimeOf(buffer)) throw foreignBufferDriverError(buffer, runtime, what);
}

// Out of line, as every error of an inlined check: a template literal in checkBufferStream took
// close()'s inlining budget, which the adapter's free needs (+19 ns a pair on the VM).
function foreignBufferDriverError(buffer: BufferBase, runtime: DriverRuntime, what: string): CudaStateError {
  return foreignDriverError(runtimeOf(buffer), runtime, what, `this ${bufferTypeName(buffer)}`);
}

/**
 * The stream, refused when it belongs to another driver than `buffer`. `stream` is one
 * streamOption checked: a Stream, whose runtime is its own (no brand test of a buffer first,
 * a lookup that close() with `{ stream }` paid on every call).
 */
export function checkBufferStream(buffer: BufferBase, stream: Stream | undefined): Stream | undefined {
  if (stream !== undefined && stream.runtime !== runtimeOf(buffer))
    throw foreignBufferDriverError(buffer, stream.runtime, 'the stream');
  return stream;
}

const toDLPackMethod = BufferBase.prototype.toDLPack;

/**
 * `buffer.toDLPack(options)` as BufferBase defines it, for cumem's own callers: not a
 * method a program may have put on the buffer or its prototype since.
 */
export function bufferToDLPack(buffer: BufferBase, options?: ToDLPackOptions): DLPackCapsule {
  return toDLPackMethod.call(buffer, options);
}

// The finalizer batch's view of a buffer (buffer-release.ts).
setDeferredReleaseHooks<BufferBase>({
  needsFinalizer: (buffer) => (flagsOf(buffer) & (owns | closedFlag)) === owns,
  finalizerRelease(buffer) {
    const runtime = runtimeOf(buffer);
    const resource = resourceOf(buffer);
    const pointer = pointerOf(buffer);
    const byteSize = byteSizeOf(buffer);
    const allocationStream = allocationStreamOf(buffer);
    return () => {
      const owner = resource as MemoryResource;
      // Tell trackers first: the free below would otherwise read as an ordinary close.
      liveAllocationsOf(owner)?.accounting?.finalized(Number(pointer));
      noteFinalizerRelease(byteSize);
      // Work queued on any stream may still use the memory: the free waits for all of it.
      releaseBufferMemory(owner, pointer, byteSize, orderForDroppedBuffer(runtime, owner, allocationStream));
    };
  },
  // The buffer outlived its finalizer batch: its pointer joins the resource's Set (live-allocations.ts).
  markRegistered(buffer, record) {
    setReleaseRecord(buffer, record);
    addFlags(buffer, registered);
    const resource = resourceOf(buffer);
    if (resource !== null) liveAllocationsOf(resource)?.settle(pointerOf(buffer));
  },
});

/** @internal fromHandle's flag for an owner whose close closes the wrapper: a Buffer or an object with a boolean isClosed. */
export function followedOwner(owner: unknown): number {
  if (bufferBrand.has(owner)) return followsOwner;
  if (typeof owner !== 'object' && typeof owner !== 'function') return 0;
  if (owner === null) return 0;
  return typeof (owner as { isClosed?: unknown }).isClosed === 'boolean' ? followsOwner : 0;
}
