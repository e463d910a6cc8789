// What a buffer is: its memory, its owner chain, whether it is closed, and how the memory can
// be reached. Buffer (buffer.ts) adds what a buffer does; the split keeps each file small.
import { CudaStateError } from '@cumem/core-types';
import { type BufferParts, bufferToken, closedFlag, followsOwner, owns, registered } from './buffer-parts.js';
import { setDeferredReleaseHooks } from './buffer-release.js';
import { type BufferOrigin, BufferState } from './buffer-state.js';
import { type ByteArrayInterface, byteArrayInterface } from './byte-array-interface.js';
import { type DLPackCapsule, exportDLPack, type ToDLPackOptions } from './dlpack-capsule.js';
import { checkSameDriver, type DriverRuntime } from './driver-runtime.js';
import { orderForDroppedBuffer } from './dropped-buffer-order.js';
import { keepOwnerAlive, trackView } from './host-views.js';
import { liveAllocationsOf } from './live-allocations.js';
import { type MemoryResource, releaseBufferMemory } from './memory-resource.js';
import { ObjectBrand } from './object-brand.js';
import { type PointerInfo, queryPointer } from './pointer-info.js';
import { noteFinalizerRelease } from './resource-pressure.js';
import type { Stream } from './stream.js';

// The writer of a resized buffer's size, for virtual-resize.ts.
export { setResizedByteSize } from './buffer-state.js';

// The readers of the private facts (buffer-state.ts), as constants of this module.
const { has: hasBufferState, runtime: runtimeOf, pointer: pointerOf, byteSize: byteSizeOf } = BufferState;
const { resource: resourceOf, allocationStream: allocationStreamOf, parent: parentOf } = BufferState;
const { ownerObject: ownerObjectOf, flags: flagsOf, addFlags, info: infoOf, setInfo } = BufferState;
const { setReleaseRecord } = BufferState;

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
 * An object given as `owner` to {@link Buffer.fromHandle} may expose, under this symbol, the
 * Buffer holding the memory it shows (interop-arrow's CudaBuffer and HostBuffer do): host views
 * taken through the wrapper are then kept alive with, and detached by, that Buffer's owner.
 */
export const ownerMemoryBuffer: unique symbol = Symbol.for('@cumem/memory.ownerMemoryBuffer');

/**
 * The brand of every Buffer and ManagedBuffer: the one test the safe API applies to a value
 * passed as a buffer, here and in the packages above (see object-brand.ts). It reads a private
 * field, which a shaped object, an object inheriting from a Buffer and a Proxy of one lack.
 */
export const bufferBrand: ObjectBrand<BufferBase> = new ObjectBrand<BufferBase>(
  'Buffer of @cumem/memory',
  hasBufferState,
);

/**
 * The state and accessors every `Buffer` and `ManagedBuffer` share: the type of
 * {@link bufferBrand}'s values. Not constructible on its own; buffers come from memory resources
 * and `Buffer.fromHandle`. Members marked internal are left out of the type declarations and are
 * not API: they read the buffer's private state for cumem's own modules, which a program can
 * reach at run time but cannot use to change what the memory is (pointer, size and owner live in
 * private fields).
 */
export abstract class BufferBase {
  // What the memory is lives in private fields (buffer-state.ts), its host views and finalizer
  // record included: no JavaScript can rewrite it, and the factories make every Buffer
  // non-extensible, so no own property shadows the getters below (issue 21). No instance fields
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
    origin?: BufferOrigin | null,
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
      origin as BufferOrigin | null,
    );
  }

  // Keeps the published type nominal (`#private` in the .d.ts) as the fields did; static, since
  // an instance member would give the class a member initializer again (buffer-state.ts).
  static #noPublicConstructor(name: string): TypeError {
    return new TypeError(
      `${name} has no public constructor: use a memory resource's allocate(), Buffer.fromHandle() or slice() to get one`,
    );
  }

  /** @internal */ get runtime(): DriverRuntime {
    return runtimeOf(this);
  }
  /** @internal */ get pointer(): bigint {
    return pointerOf(this);
  }
  /** @internal */ get byteSize(): number {
    return byteSizeOf(this);
  }
  /** @internal */ get resource(): MemoryResource | null {
    return resourceOf(this);
  }
  /** @internal */ get allocationStream(): Stream | undefined {
    return allocationStreamOf(this);
  }
  /** @internal */ get parent(): BufferBase | null {
    return parentOf(this);
  }
  /** @internal The state bits (owns, closedFlag, ...). */
  protected get flags(): number {
    return flagsOf(this);
  }

  /** Size in bytes. */
  get size(): number {
    return this.byteSize;
  }

  /** The address (a unified-address pointer). */
  get handle(): bigint {
    return this.pointer;
  }

  /** The device the memory is on, or -1 for host memory. */
  get deviceId(): number {
    return this.resource !== null ? this.resource.deviceId : this.pointerInfo().deviceId;
  }

  /** The resource the memory came from (for slices: the parent's), or null for external memory. */
  get memoryResource(): MemoryResource | null {
    return this.resource;
  }

  /** The object keeping external memory alive (for slices: the parent buffer), or null. */
  get owner(): unknown {
    return ownerObjectOf(this);
  }

  /** The device can use the memory. */
  get isDeviceAccessible(): boolean {
    return this.resource !== null ? this.resource.isDeviceAccessible : this.pointerInfo().isDeviceAccessible;
  }

  /**
   * This buffer for other libraries: CUDA Array Interface v3 of a 1-D uint8 array (camelCase,
   * as `StridedMemoryView.from` of @cumem/utils reads it).
   * @throws CudaStateError when closed.
   */
  get cudaArrayInterface(): ByteArrayInterface {
    return byteArrayInterface(this, this.pointer, this.byteSize, false);
  }

  /**
   * This buffer as a 1-D uint8 DLPack tensor for native code (see {@link DLPackCapsule}): the
   * memory stays allocated until the consumer calls the deleter, even if this buffer is closed.
   * @throws CudaStateError when closed; TypeError for bad options.
   */
  toDLPack(options?: ToDLPackOptions): DLPackCapsule {
    const { pointer, byteSize } = this;
    const dtype = { code: 1, bits: 8, lanes: 1 };
    const source = { pointer, shape: [byteSize], strides: [1], dtype, readonly: false, keepAlive: undefined };
    return exportDLPack({ ...source, buffer: this, deviceId: this.deviceId }, options);
  }

  /** The CPU can read and write the memory (and {@link Buffer.hostView} works). */
  get isHostAccessible(): boolean {
    return this.resource !== null ? this.resource.isHostAccessible : this.pointerInfo().isHostAccessible;
  }

  /** The memory is CUDA managed (unified) memory. */
  get isManaged(): boolean {
    return this.resource !== null ? this.resource.isManaged : this.pointerInfo().isManaged;
  }

  /** The memory was mapped from another process (IPC). */
  get isMapped(): boolean {
    return this.resource?.isMapped === true;
  }

  /**
   * True after `close()`, once the buffer this one slices is closed, or once the `owner` given
   * to {@link Buffer.fromHandle} (a Buffer, or any object with a boolean `isClosed`) is closed.
   */
  get isClosed(): boolean {
    // A loop up the slice chain, not a recursive getter: V8 does not inline recursion, and batch
    // operations ask this of thousands of slices per call.
    let buffer: BufferBase | null = this;
    do {
      const flags = flagsOf(buffer);
      if ((flags & closedFlag) !== 0) return true;
      if ((flags & followsOwner) !== 0 && ownerIsClosed(ownerObjectOf(buffer))) return true;
      buffer = parentOf(buffer);
    } while (buffer !== null);
    return false;
  }

  toString(): string {
    return `${this.typeName}(0x${this.pointer.toString(16)}, ${this.byteSize} bytes${this.isClosed ? ', closed' : ''})`;
  }

  /** @internal Name used in errors: overridden by ManagedBuffer. */
  protected get typeName(): string {
    return 'Buffer';
  }

  /** @internal CudaStateError naming the object when it (or the buffer or owner it derives from) is closed. */
  checkOpen(): void {
    const flags = flagsOf(this);
    if (
      (flags & closedFlag) !== 0 ||
      this.parent?.isClosed === true ||
      ((flags & followsOwner) !== 0 && ownerIsClosed(ownerObjectOf(this)))
    ) {
      throw CudaStateError.closed(this.typeName);
    }
  }

  /** @internal The buffer whose memory this one shows: through slices' parents and owner buffers. */
  memoryOwner(): BufferBase {
    let buffer: BufferBase = this;
    for (;;) {
      const parent = parentOf(buffer);
      if (parent !== null) buffer = parent;
      else {
        const next =
          (flagsOf(buffer) & followsOwner) !== 0 ? bufferOfOwnerObject(ownerObjectOf(buffer)) : null;
        if (next === null) return buffer;
        buffer = next;
      }
    }
  }

  /** @internal A view of this buffer's memory keeps it alive; memory it owns detaches the view on close. */
  recordView(view: ArrayBuffer): void {
    keepOwnerAlive(view, this);
    if ((flagsOf(this) & owns) !== 0) setBufferViews(this, trackView(bufferViews(this), view));
  }

  /** @internal The stream, refused when it belongs to another driver. */
  protected checkStream(stream: Stream | undefined): Stream | undefined {
    if (stream !== undefined) this.checkSameDriver(stream, 'the stream');
    return stream;
  }

  /**
   * @internal `other` (a stream, or a buffer to copy from or to), refused when it belongs to
   * another driver: its pointers and handles are not this driver's to use (another libcuda, or
   * state another adapter made).
   */
  protected checkSameDriver(other: { readonly runtime: DriverRuntime }, what: string): void {
    checkSameDriver(this.runtime, other, what, `this ${this.typeName}`);
  }

  /** @internal Plain device memory: the device can use it and the CPU cannot (not pinned, not managed). */
  isDeviceOnly(): boolean {
    return this.isDeviceAccessible && !this.isHostAccessible;
  }

  /** @internal The device to order work on when no stream is given. */
  workDevice(other: BufferBase | null): number {
    const own = this.deviceId;
    if (own >= 0) return own;
    if (other !== null && other.deviceId >= 0) return other.deviceId;
    return this.runtime.currentDevice;
  }

  /** @internal Checks external memory handed to fromHandle; ManagedBuffer insists on managed memory. */
  protected checkWrapped(): void {}

  /** @internal How external memory is accessible, from pointer attributes (asked once). */
  protected pointerInfo(): PointerInfo {
    let info = infoOf(this);
    if (info === undefined) {
      const parent = parentOf(this);
      info = parent !== null ? parent.pointerInfo() : queryPointer(runtimeOf(this), pointerOf(this));
      setInfo(this, info);
    }
    return info;
  }
}

// The finalizer batch's view of a buffer (buffer-release.ts).
setDeferredReleaseHooks<BufferBase>({
  needsFinalizer: (buffer) => (flagsOf(buffer) & (owns | closedFlag)) === owns,
  finalizerRelease(buffer) {
    const { runtime, resource, pointer, byteSize, allocationStream } = buffer;
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

function ownerIsClosed(owner: unknown): boolean {
  return (owner as { isClosed?: unknown }).isClosed === true;
}

/** The Buffer an owner stands for: itself, or what it exposes under {@link ownerMemoryBuffer}. */
function bufferOfOwnerObject(owner: unknown): BufferBase | null {
  if (bufferBrand.has(owner)) return owner;
  const held = (owner as { [ownerMemoryBuffer]?: unknown })[ownerMemoryBuffer];
  return bufferBrand.has(held) ? held : null;
}
