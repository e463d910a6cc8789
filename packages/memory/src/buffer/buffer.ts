// What a buffer does: copies, fills, slices, host views, IPC and close. What it is (its state
// and accessors) is BufferBase, in buffer-base.ts.
import { CudaStateError, checkAddress, checkOptions, checkSize, describeValue } from '@cumem/core-types';
import { asView, type HostMemory, isHostMemory } from '../copy/host-memory.js';
import { copyBuffers } from '../copy/peer-copy.js';
import { type IpcBufferDescriptor, readIpcDescriptor } from '../interop/ipc/ipc-descriptor.js';
import { adoptBufferMemory, MemoryResource, releaseBufferMemory } from '../resources/memory-resource.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../stream/stream-options.js';
import {
  BufferBase,
  bufferReleaseRecord,
  bufferViews,
  checkBufferSameDriver,
  checkBufferStream,
  followedOwner,
  markBufferClosed,
  recordBufferView,
  setBufferViews,
} from './buffer-base.js';
import { copyHostRange, fillPattern, fillPointer } from './buffer-copy.js';
import {
  bufferAllocationStream,
  bufferBrand,
  bufferByteSize,
  bufferFlags,
  bufferIsDeviceOnly,
  bufferIsHostAccessible,
  bufferIsManaged,
  bufferMemoryOwner,
  bufferPointer,
  bufferResource,
  bufferRuntime,
  bufferWorkDevice,
  checkBufferOpen,
} from './buffer-facts.js';
import type { FromHandleOptions } from './buffer-options.js';
import {
  type BufferClass,
  batched,
  bufferToken,
  closedFlag,
  managedClass,
  owns,
  registered,
  type SliceRecorder,
  virtualClass,
} from './buffer-parts.js';
import { cancelRelease, closedInBatch, deferRelease, type ReleaseRecord } from './buffer-release.js';
import { BufferOrigin } from './buffer-state.js';
import { detachViews, releaseAfterViews } from './host-views.js';
import { closeOrder } from './kernel-use.js';
import { liveAllocationsOf } from './live-allocations.js';
import { isMemoryHeld, releaseWhenUnheld } from './memory-holds.js';
import { rangeOverrun } from './pointer-range.js';

export { ownerMemoryBuffer } from './buffer-base.js';

/**
 * A range of memory: device, page-locked host or managed. Made by a memory resource's
 * `allocate`, by {@link Buffer.fromHandle}, or by {@link Buffer.slice}.
 */
export class Buffer extends BufferBase {
  /**
   * Wraps memory cumem did not allocate. With `mr`, the buffer owns it and `close()` (or GC)
   * calls `mr.deallocate`; with `owner`, that object is kept alive instead; with neither, the
   * buffer only borrows the memory. On `ManagedBuffer` it returns a ManagedBuffer.
   *
   * **Unsafe:** cumem cannot check who owns the memory or how long it stays allocated, and it
   * checks `size` only where the driver knows the allocation (`CU_POINTER_ATTRIBUTE_RANGE_SIZE`;
   * not pageable host memory, such as native code's malloc). The caller must guarantee that
   * `size` bytes at `pointer` are memory it may read and write, and that they stay allocated
   * until the buffer, its slices and its host views are closed: with `mr`, that nothing else
   * frees the memory; with `owner`, that the owner keeps it allocated while reachable.
   * Otherwise the buffer reads and writes memory it does not own.
   * @param pointer a bigint address or a non-negative safe integer.
   * @param size bytes.
   * @throws TypeError for `mr` and `owner` together, or an `mr` that is not a MemoryResource
   *   made by its constructor (an object that only inherits from its prototype has no way to free);
   *   RangeError when `size` bytes run past the end of the driver-known allocation at `pointer`;
   *   CudaStateError when an open buffer of a built-in `mr` already owns `pointer`.
   */
  static fromHandle<B extends Buffer>(
    // The class it is called on (Buffer or ManagedBuffer) picks the result type; its constructor
    // signature is internal, so the public type names only the prototype.
    this: { readonly prototype: B },
    pointer: bigint | number,
    size: number,
    options?: FromHandleOptions,
  ): B {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class called on (Buffer or ManagedBuffer)
    const kind = wrapperKind(this);
    const handle = checkAddress(pointer, 'pointer');
    checkSize(size, 'size');
    const { mr, owner } = checkOptions(options, 'Buffer.fromHandle options');
    if (mr !== undefined && !(mr instanceof MemoryResource)) {
      throw new TypeError(`mr must be a MemoryResource, got ${describeValue(mr)}`);
    }
    if (mr !== undefined && owner !== undefined) {
      throw new TypeError(
        'Buffer.fromHandle takes mr or owner, not both: mr frees the memory, owner keeps it alive',
      );
    }
    const runtime = activeRuntime();
    const overrun = rangeOverrun(runtime.driver, handle, size, 'Buffer.fromHandle');
    if (overrun !== undefined) throw overrun;
    const buffer = new (bufferClassOf(kind) as BufferClass<B>)(
      bufferToken,
      runtime,
      handle,
      size,
      mr ?? null,
      undefined,
      kind | (mr === undefined ? followedOwner(owner) : size > 0 ? owns | batched : owns),
      // With mr (never with owner) the buffer has a resource and no origin.
      mr === undefined ? new BufferOrigin(owner ?? null) : null,
    );
    if (kind === managedClass && !bufferIsManaged(buffer)) {
      throw new TypeError(
        'ManagedBuffer.fromHandle needs managed memory (cuMemAllocManaged or a managed pool); use Buffer.fromHandle',
      );
    }
    if (mr !== undefined && size > 0) {
      adoptBufferMemory(mr, handle, size);
      deferRelease(buffer);
    }
    return buffer;
  }

  /**
   * Opens a buffer another process exported (`buf.ipcDescriptor`) through `mr`, the resource
   * imported from the exporter's allocation handle. Closing it is ordered on `options.stream`
   * (default: the device's default stream). The descriptor comes from another process and is
   * not trusted: the memory it opens is checked (size against the allocation's range, kind and
   * device against `mr`) before a Buffer is handed out. Opening one descriptor twice gives two
   * buffers of one mapping, freed when the last of them is closed.
   * @throws TypeError when mr is not an imported IPC pool, the descriptor is malformed, or the
   *   memory is not of mr's kind (a pinned pool's handle imported as DeviceMemoryResource, or the
   *   reverse); RangeError when the descriptor's size is larger than the exported allocation.
   */
  static fromIpcDescriptor(
    mr: MemoryResource,
    descriptor: IpcBufferDescriptor,
    options?: StreamOrderOptions,
  ): Buffer {
    if (!(mr instanceof MemoryResource))
      throw new TypeError(`mr must be a MemoryResource, got ${describeValue(mr)}`);
    const { bytes, size } = readIpcDescriptor(descriptor);
    const stream = streamOption(options);
    if (mr.isClosed) throw CudaStateError.closed(mr.constructor.name);
    return mr.importIpcBuffer(bytes, size, stream);
  }

  /** What another process needs to open this buffer (see {@link Buffer.fromIpcDescriptor}). */
  get ipcDescriptor(): IpcBufferDescriptor {
    checkBufferOpen(this);
    const resource = bufferResource(this);
    if (resource === null) {
      throw new TypeError(
        'external memory cannot be shared: ipcDescriptor needs a buffer from an IPC-enabled pool',
      );
    }
    return resource.exportIpcBuffer(bufferPointer(this), bufferByteSize(this));
  }

  /**
   * Returns the memory to its resource (when the buffer owns it), ordered on `options.stream`,
   * else on the stream it was allocated on; never waits. Harmless when already closed.
   * Host views handed out over the memory (through this buffer, its slices or wrappers) are
   * detached first and read as length 0; where the driver cannot detach them (FFI), the
   * buffer is closed at once but the memory goes back only after they were garbage-collected.
   */
  close(options?: StreamOrderOptions): void {
    let flags = bufferFlags(this);
    if ((flags & closedFlag) !== 0) return;
    let stream: Stream | undefined;
    if (options !== undefined) {
      stream = checkBufferStream(this, streamOption(options));
      // Reading the options ran the caller's getters, which may have closed this buffer: that
      // close freed the memory, and a second free could release an allocation made since.
      flags = bufferFlags(this);
      if ((flags & closedFlag) !== 0) return;
    }
    markBufferClosed(this);
    if ((flags & owns) === 0) return;
    if ((flags & registered) !== 0) cancelRelease(bufferReleaseRecord(this) as ReleaseRecord);
    // Queued and not registered: it is in the finalizer batch now (buffer-release.ts).
    else if ((flags & batched) !== 0) closedInBatch();
    const byteSize = bufferByteSize(this);
    if (byteSize === 0) return;
    const resource = bufferResource(this) as MemoryResource;
    const order = closeOrder(this, resource, stream ?? bufferAllocationStream(this));
    // The common case, allocating nothing: no host views, no native holders. The rest is out of
    // line, so that close() stays small enough for TurboFan to inline the adapter's free into it.
    if (bufferViews(this) === null && !isMemoryHeld(this))
      releaseBufferMemory(resource, bufferPointer(this), byteSize, order);
    else Buffer.#releaseAfterUse(this, resource, byteSize, order);
  }

  // close()'s free when host views or native holders may still use the memory. Static and
  // private: no program can call it on an open buffer (it frees the memory).
  static #releaseAfterUse(
    buffer: Buffer,
    resource: MemoryResource,
    byteSize: number,
    order: Stream | undefined,
  ): void {
    const views = bufferViews(buffer);
    const attached = views === null ? null : detachViews(bufferRuntime(buffer).driver, views);
    setBufferViews(buffer, null);
    const pointer = bufferPointer(buffer);
    if (attached === null && !isMemoryHeld(buffer)) {
      releaseBufferMemory(resource, pointer, byteSize, order);
      return;
    }
    // The free waits: until then the pointer must be in the resource's Set (live-allocations.ts).
    liveAllocationsOf(resource)?.settle(pointer);
    // The stream may have been closed while views or native holders lived: then the resource's own order.
    const release = () =>
      releaseBufferMemory(resource, pointer, byteSize, order?.isClosed === true ? undefined : order);
    if (attached !== null) releaseAfterViews(attached, () => releaseWhenUnheld(buffer, release));
    else releaseWhenUnheld(buffer, release);
  }

  [Symbol.dispose](): void {
    closeBuffer(this);
  }

  /**
   * Copies this buffer into `dst` (a Buffer or JS memory of the same size), or into a new buffer
   * from the same resource when `dst` is omitted. `buf.copyTo({ stream })` also works.
   * @returns `dst`, or the new buffer.
   * @throws RangeError on a size mismatch; TypeError for another kind of `dst`.
   */
  copyTo<T extends Buffer | HostMemory>(dst: T, options?: StreamOrderOptions): T;
  copyTo(options?: StreamOrderOptions): Buffer;
  copyTo(
    dstOrOptions?: Buffer | HostMemory | StreamOrderOptions,
    maybeOptions?: StreamOrderOptions,
  ): Buffer | HostMemory {
    let dst: Buffer | HostMemory | undefined;
    let options = maybeOptions;
    if (bufferBrand.has(dstOrOptions) || isHostMemory(dstOrOptions))
      dst = dstOrOptions as Buffer | HostMemory;
    // An object with a `handle` is a would-be dst (an imitation of a Buffer), not options.
    else if (dstOrOptions !== undefined && maybeOptions === undefined && !('handle' in Object(dstOrOptions)))
      options = dstOrOptions;
    else if (dstOrOptions !== undefined)
      throw new TypeError(`dst must be a Buffer or JS memory, got ${describeValue(dstOrOptions)}`);
    const stream = checkBufferStream(this, streamOption(options));
    checkBufferOpen(this);
    if (dst === undefined) {
      const resource = bufferResource(this);
      if (resource === null)
        throw new TypeError('copyTo() without dst needs a buffer that has a memory resource');
      dst = resource.allocate(bufferByteSize(this), stream === undefined ? undefined : { stream });
    }
    if (bufferBrand.has(dst)) {
      checkBufferOpen(dst);
      checkBufferSameDriver(this, dst, 'dst');
      checkSameSize(bufferByteSize(dst), bufferByteSize(this));
      copyBuffers(bufferRuntime(this), dst, this, bufferByteSize(this), stream, bufferWorkDevice(this, dst));
    } else {
      const view = asView(dst);
      checkSameSize(view.byteLength, bufferByteSize(this));
      copyHostRange(
        bufferRuntime(this),
        false,
        bufferPointer(this),
        view,
        bufferIsDeviceOnly(this),
        stream,
        bufferWorkDevice(this, null),
      );
    }
    return dst;
  }

  /**
   * Copies `src` (a Buffer or JS memory of the same size) into this buffer.
   * @throws RangeError on a size mismatch; TypeError for another kind of `src`.
   */
  copyFrom(src: Buffer | HostMemory, options?: StreamOrderOptions): void {
    const stream = checkBufferStream(this, streamOption(options));
    checkBufferOpen(this);
    if (bufferBrand.has(src)) {
      checkBufferOpen(src);
      checkBufferSameDriver(this, src, 'src');
      checkSameSize(bufferByteSize(this), bufferByteSize(src));
      copyBuffers(bufferRuntime(this), this, src, bufferByteSize(this), stream, bufferWorkDevice(this, src));
    } else if (isHostMemory(src)) {
      const view = asView(src);
      checkSameSize(bufferByteSize(this), view.byteLength);
      copyHostRange(
        bufferRuntime(this),
        true,
        bufferPointer(this),
        view,
        bufferIsDeviceOnly(this),
        stream,
        bufferWorkDevice(this, null),
      );
    } else {
      throw new TypeError(
        `src must be a Buffer or JS memory (ArrayBufferView, ArrayBuffer), got ${describeValue(src)}`,
      );
    }
  }

  /**
   * Fills the buffer with `value`: an integer 0..255 (one byte), or a 1-, 2- or 4-byte view
   * whose bytes repeat (`cuMemsetD8/D16/D32`).
   * @throws TypeError for a non-integer or non-view; RangeError for a value outside 0..255, a
   *   pattern of another length, or a size not divisible by the pattern length.
   */
  fill(value: number | ArrayBufferView, options?: StreamOrderOptions): void {
    const stream = checkBufferStream(this, streamOption(options));
    checkBufferOpen(this);
    const pattern = fillPattern(value, bufferByteSize(this), bufferPointer(this));
    fillPointer(
      bufferRuntime(this),
      bufferPointer(this),
      bufferByteSize(this),
      pattern,
      stream,
      bufferWorkDevice(this, null),
      bufferIsDeviceOnly(this),
    );
  }

  /**
   * A view of `length` bytes from `offset` (default: to the end) sharing this allocation. Its
   * owner is this buffer; closing it frees nothing, closing this buffer closes it too.
   * @throws RangeError when the range does not fit.
   */
  slice(offset: number, length?: number): this {
    checkSize(offset, 'offset');
    if (length !== undefined) checkSize(length, 'length');
    checkBufferOpen(this);
    if (offset > bufferByteSize(this))
      throw new RangeError(`offset ${offset} is past the end of a ${bufferByteSize(this)}-byte buffer`);
    const size = length ?? bufferByteSize(this) - offset;
    if (offset + size > bufferByteSize(this)) {
      throw new RangeError(
        `slice of ${size} bytes at offset ${offset} does not fit a ${bufferByteSize(this)}-byte buffer`,
      );
    }
    // The slice's class and the record of a virtual allocation's slices come from this buffer's
    // state, not from its prototype or `constructor`, which a program can change.
    const kind = bufferFlags(this) & classKinds;
    const resource = bufferResource(this);
    const view = new (bufferClassOf(kind) as BufferClass<this>)(
      bufferToken,
      bufferRuntime(this),
      bufferPointer(this) + BigInt(offset),
      size,
      resource,
      undefined,
      kind,
      this,
    );
    if (kind === virtualClass) (resource as unknown as SliceRecorder).noteSlice(view);
    return view;
  }

  /**
   * A zero-copy `Uint8Array` over the memory; only for host-accessible buffers (pinned, managed).
   * While the view (or another view of its ArrayBuffer) is reachable, the buffer that owns the
   * memory (for a slice or wrapper: the buffer it derives from) is not garbage-collected. When
   * that buffer is closed the view is detached and reads as length 0; an adapter that cannot
   * detach (FFI) keeps the memory from being reused until the view is garbage-collected.
   * @throws TypeError when the CPU cannot access the memory.
   */
  hostView(): Uint8Array {
    checkBufferOpen(this);
    if (!bufferIsHostAccessible(this)) {
      throw new TypeError(
        'hostView() needs host-accessible memory (pinned or managed); copy device memory with copyTo()',
      );
    }
    const view = bufferRuntime(this).driver.hostView(bufferPointer(this), bufferByteSize(this));
    if (bufferByteSize(this) !== 0) recordBufferView(bufferMemoryOwner(this), view.buffer as ArrayBuffer);
    return view;
  }
}

function checkSameSize(dstSize: number, srcSize: number): void {
  if (dstSize !== srcSize) {
    throw new RangeError(`size mismatch: the destination has ${dstSize} bytes, the source ${srcSize}`);
  }
}

/** @internal A buffer a resource allocated (it owns the memory). Hot path: one object, no validation. */
export function allocatedBuffer<B extends Buffer>(
  Class: { readonly prototype: B },
  runtime: DriverRuntime,
  handle: bigint,
  size: number,
  resource: MemoryResource,
  stream: Stream | undefined,
): B {
  // Device and pinned pools (the hot path) make plain Buffers: one comparison.
  const kind = (Class as unknown) === Buffer ? 0 : classKind(Class);
  // The constructor is protected in the published types; this module holds the token.
  const buffer = new (Class as BufferClass<B>)(
    bufferToken,
    runtime,
    handle,
    size,
    resource,
    stream,
    kind | (size !== 0 ? owns | batched : owns),
    null,
  );
  if (size !== 0) deferRelease(buffer);
  return buffer;
}

// The classes buffers are made as, by kind (buffer-parts.ts' class bits): Buffer, ManagedBuffer
// (managed-buffer.ts) and VirtualBuffer (virtual-buffer.ts) register themselves.
const classKinds = managedClass | virtualClass;
const classesByKind = new Map<number, { readonly prototype: Buffer }>();
const kindsByClass = new Map<unknown, number>();

/** @internal Makes `Class` the class of buffers of `kind` (one of buffer-parts.ts' class bits, or 0). */
export function registerBufferClass(Class: { readonly prototype: Buffer }, kind: number): void {
  classesByKind.set(kind, Class);
  kindsByClass.set(Class, kind);
}

function bufferClassOf(kind: number): { readonly prototype: Buffer } {
  return classesByKind.get(kind) as { readonly prototype: Buffer };
}

// The kind of a class allocatedBuffer was called with (one of cumem's own).
function classKind(Class: unknown): number {
  return kindsByClass.get(Class) as number;
}

// The kind of the class `fromHandle` was called on: Buffer or ManagedBuffer. Anything else is
// refused before any driver call, so that no other constructor is ever handed the private token
// (and no VirtualBuffer wraps memory no VirtualMemoryResource records the slices of).
function wrapperKind(Class: unknown): number {
  const kind = kindsByClass.get(Class);
  if (kind !== 0 && kind !== managedClass) {
    throw new TypeError(
      'fromHandle makes Buffers and ManagedBuffers: call it as Buffer.fromHandle or ManagedBuffer.fromHandle',
    );
  }
  return kind;
}

registerBufferClass(Buffer, 0);

const closeMethod = Buffer.prototype.close;

/**
 * `buffer.close(options)` as Buffer defines it, for cumem's own callers: not the
 * method a program may have put on the buffer or its prototype since (a close that did not run
 * would leave the buffer open over memory the caller goes on to free).
 */
export function closeBuffer(buffer: Buffer, options?: StreamOrderOptions): void {
  closeMethod.call(buffer, options);
}

const hostViewMethod = Buffer.prototype.hostView;
const ipcDescriptorGetter = Object.getOwnPropertyDescriptor(Buffer.prototype, 'ipcDescriptor')
  ?.get as () => IpcBufferDescriptor;

/** `buffer.ipcDescriptor` as Buffer defines it, for cumem's own callers (see {@link closeBuffer}). */
export function ipcDescriptorOf(buffer: Buffer): IpcBufferDescriptor {
  return ipcDescriptorGetter.call(buffer);
}

/** `buffer.hostView()` as Buffer defines it, for cumem's own callers (see {@link closeBuffer}). */
export function hostViewOf(buffer: Buffer): Uint8Array {
  return hostViewMethod.call(buffer);
}
