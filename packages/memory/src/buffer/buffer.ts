// What a buffer does: copies, fills, slices, host views, IPC and close. What it is (its state
// and getters) is BufferBase, in buffer-base.ts; how it is made, buffer-construction.ts.
import { CudaStateError, checkSize, describeValue, viewByteLength } from '@cumem/core-types';
import { asView, type HostMemory, isHostMemory } from '../copy/host-memory.js';
import { type IpcBufferDescriptor, readIpcDescriptor } from '../interop/ipc/ipc-descriptor.js';
import { type DriverRuntime, foreignDriverError } from '../runtime/driver-runtime.js';
import { Stream } from '../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../stream/stream-options.js';
import { BufferBase, bufferBrand, bufferState, stateIfBuffer } from './buffer-base.js';
import { defineBufferKind, type FromHandleOptions, wrapExternalMemory } from './buffer-construction.js';
import { copyBufferHost, fillBuffer, fillPattern } from './buffer-copy.js';
import { copyBuffers } from './buffer-peer-copy.js';
import { cancelRelease, closedInBatch } from './buffer-release.js';
import { type BufferKind, BufferState, type SliceRecorder } from './buffer-state.js';
import { detachViews, keepOwnerAlive, releaseAfterViews, trackView } from './host-views.js';
import { closeOrder } from './kernel-use.js';
import { liveAllocationsOf } from './live-allocations.js';
import { isMemoryHeld, releaseWhenUnheld } from './memory-holds.js';
import { MemoryResource, releaseBufferMemory } from './memory-resource.js';

export { ownerMemoryBuffer } from './buffer-base.js';
export type { FromHandleOptions } from './buffer-construction.js';
export type { BufferKind, SliceRecorder } from './buffer-state.js';

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
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class called on (Buffer, or a class refused)
    if ((this as unknown) !== Buffer) throw notAWrapperClass();
    return wrapExternalMemory(bufferKind, pointer, size, options) as unknown as B;
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
    const state = bufferState(this, 'ipcDescriptor');
    state.checkOpen();
    if (state.resource === null) {
      throw new TypeError(
        'external memory cannot be shared: ipcDescriptor needs a buffer from an IPC-enabled pool',
      );
    }
    return state.resource.exportIpcBuffer(state.pointer, state.size);
  }

  /**
   * Returns the memory to its resource (when the buffer owns it), ordered on `options.stream`,
   * else on the stream it was allocated on; never waits. Harmless when already closed.
   * Host views handed out over the memory (through this buffer, its slices or wrappers) are
   * detached first and read as length 0; where the driver cannot detach them (FFI), the
   * buffer is closed at once but the memory goes back only after they were garbage-collected.
   */
  close(options?: StreamOrderOptions): void {
    const state = bufferState(this, 'close');
    if (state.closed) return;
    let stream: Stream | undefined;
    if (options !== undefined) {
      stream = checkStreamDriver(state, streamOption(options));
      // Reading the options ran the caller's getters, which may have closed this buffer: that
      // close freed the memory, and a second free could release an allocation made since.
      if (state.closed) return;
    }
    state.closed = true;
    if (!state.ownsMemory) return;
    if (state.releaseRecord !== null) cancelRelease(state.releaseRecord);
    else if (state.inFinalizerBatch) closedInBatch();
    if (state.size === 0) return;
    const resource = state.resource as MemoryResource;
    const order = closeOrder(state, stream ?? state.allocationStream);
    if (state.views === null && !isMemoryHeld(this))
      releaseBufferMemory(resource, state.pointer, state.size, order);
    else releaseAfterUse(state, order);
  }

  [Symbol.dispose](): void {
    bufferState(this, '[Symbol.dispose]');
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
    const state = bufferState(this, 'copyTo');
    let dst: Buffer | HostMemory | undefined;
    let options = maybeOptions;
    if (bufferBrand.has(dstOrOptions) || isHostMemory(dstOrOptions))
      dst = dstOrOptions as Buffer | HostMemory;
    // An object with a `handle` is a would-be dst (an imitation of a Buffer), not options.
    else if (dstOrOptions !== undefined && maybeOptions === undefined && !('handle' in Object(dstOrOptions)))
      options = dstOrOptions;
    else if (dstOrOptions !== undefined)
      throw new TypeError(`dst must be a Buffer or JS memory, got ${describeValue(dstOrOptions)}`);
    const stream = checkStreamDriver(state, streamOption(options));
    state.checkOpen();
    if (dst === undefined) {
      if (state.resource === null)
        throw new TypeError('copyTo() without dst needs a buffer that has a memory resource');
      dst = state.resource.allocate(state.size, stream === undefined ? undefined : { stream });
    }
    const target = stateIfBuffer(dst);
    if (target !== undefined) {
      target.checkOpen();
      checkSameDriver(state, target.runtime, 'dst');
      checkSameSize(target.size, state.size);
      copyBuffers(state.runtime, target, state, state.size, stream, state.workDevice(target));
    } else {
      const view = asView(dst as HostMemory);
      checkSameSize(viewByteLength(view), state.size);
      copyBufferHost(state, false, view, stream);
    }
    return dst;
  }

  /**
   * Copies `src` (a Buffer or JS memory of the same size) into this buffer.
   * @throws RangeError on a size mismatch; TypeError for another kind of `src`.
   */
  copyFrom(src: Buffer | HostMemory, options?: StreamOrderOptions): void {
    const state = bufferState(this, 'copyFrom');
    const stream = checkStreamDriver(state, streamOption(options));
    state.checkOpen();
    const source = stateIfBuffer(src);
    if (source !== undefined) {
      source.checkOpen();
      checkSameDriver(state, source.runtime, 'src');
      checkSameSize(state.size, source.size);
      copyBuffers(state.runtime, state, source, state.size, stream, state.workDevice(source));
    } else if (isHostMemory(src)) {
      const view = asView(src);
      checkSameSize(state.size, viewByteLength(view));
      copyBufferHost(state, true, view, stream);
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
    const state = bufferState(this, 'fill');
    const stream = checkStreamDriver(state, streamOption(options));
    state.checkOpen();
    fillBuffer(state, fillPattern(value, state.size, state.pointer), stream);
  }

  /**
   * A view of `length` bytes from `offset` (default: to the end) sharing this allocation. Its
   * owner is this buffer; closing it frees nothing, closing this buffer closes it too.
   * @throws RangeError when the range does not fit.
   */
  slice(offset: number, length?: number): this {
    const state = bufferState(this, 'slice');
    checkSize(offset, 'offset');
    if (length !== undefined) checkSize(length, 'length');
    state.checkOpen();
    if (offset > state.size)
      throw new RangeError(`offset ${offset} is past the end of a ${state.size}-byte buffer`);
    const size = length ?? state.size - offset;
    if (offset + size > state.size) {
      throw new RangeError(
        `slice of ${size} bytes at offset ${offset} does not fit a ${state.size}-byte buffer`,
      );
    }
    // The slice's class and the record of a virtual allocation's slices come from this buffer's
    // kind (its state), not from its prototype or `constructor`, which a program can change.
    const slice = state.kind.make(BufferState.sliceOf(state, offset, size)) as this;
    if (state.kind.recordsSlices) (state.resource as unknown as SliceRecorder).noteSlice(slice);
    return slice;
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
    const state = bufferState(this, 'hostView');
    state.checkOpen();
    if (!state.isHostAccessible) {
      throw new TypeError(
        'hostView() needs host-accessible memory (pinned or managed); copy device memory with copyTo()',
      );
    }
    const view = state.runtime.driver.hostView(state.pointer, state.size);
    if (state.size !== 0) recordHostView(state.memoryOwner, view.buffer as ArrayBuffer);
    return view;
  }
}

function checkSameSize(dstSize: number, srcSize: number): void {
  if (dstSize !== srcSize) {
    throw new RangeError(`size mismatch: the destination has ${dstSize} bytes, the source ${srcSize}`);
  }
}

/**
 * `other`'s driver runtime (a stream's, or a buffer's to copy from or to), refused when it is not
 * `buffer`'s: its pointers and handles are not this driver's to use (another libcuda, or state
 * another adapter made).
 */
function checkSameDriver(buffer: BufferState, other: DriverRuntime, what: string): void {
  if (other !== buffer.runtime)
    throw foreignDriverError(buffer.runtime, other, what, `this ${buffer.typeName}`);
}

/** @internal The stream (one streamOption checked), refused when it belongs to another driver than `buffer`. */
export function checkStreamDriver(buffer: BufferState, stream: Stream | undefined): Stream | undefined {
  if (stream !== undefined) checkSameDriver(buffer, stream.runtime, 'the stream');
  return stream;
}

// A view of a buffer's memory keeps the buffer owning it alive; memory it owns detaches the view on close.
function recordHostView(owner: BufferBase, view: ArrayBuffer): void {
  keepOwnerAlive(view, owner);
  const state = bufferState(owner);
  if (state.ownsMemory) state.views = trackView(state.views, view);
}

// close()'s free when host views or native holders may still use the memory. Not a method: no
// program can call it on an open buffer (it frees the memory).
function releaseAfterUse(state: BufferState, order: Stream | undefined): void {
  const { resource, pointer, size, views } = state as BufferState & { resource: MemoryResource };
  const attached = views === null ? null : detachViews(state.runtime.driver, views);
  state.views = null;
  if (attached === null && !isMemoryHeld(state.buffer)) {
    releaseBufferMemory(resource, pointer, size, order);
    return;
  }
  // The free waits: until then the pointer must be in the resource's Set (live-allocations.ts).
  liveAllocationsOf(resource)?.settle(pointer);
  // The stream may have been closed while views or native holders lived: then the resource's own order.
  const release = () =>
    releaseBufferMemory(
      resource,
      pointer,
      size,
      order !== undefined && !Stream.isOpenStream(order) ? undefined : order,
    );
  if (attached !== null) releaseAfterViews(attached, () => releaseWhenUnheld(state.buffer, release));
  else releaseWhenUnheld(state.buffer, release);
}

/** @internal The kind of plain Buffers (device and pinned memory). */
export const bufferKind: BufferKind = defineBufferKind('Buffer', Buffer as never, false);

function notAWrapperClass(): TypeError {
  return new TypeError(
    'fromHandle makes Buffers and ManagedBuffers: call it as Buffer.fromHandle or ManagedBuffer.fromHandle',
  );
}

const closeMethod = Buffer.prototype.close;

/**
 * `buffer.close(options)` as Buffer defines it, for cumem's own callers: not the method a program
 * may have put on the buffer or its prototype since (a close that did not run would leave the
 * buffer open over memory the caller goes on to free). The packages above call
 * `bufferState(buffer).close(options)`, the same function.
 */
export function closeBuffer(buffer: Buffer, options?: StreamOrderOptions): void {
  closeMethod.call(buffer, options);
}
