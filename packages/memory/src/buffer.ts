// Buffer and the MemoryResource base live in one module, as in cuda.core (_buffer.pyx): each
// names the other in its types, and the layering check forbids a cycle between two files.
import {
  CudaError,
  CudaStateError,
  checkAddress,
  checkOptions,
  checkSize,
  describeValue,
  MemoryType,
  PointerAttribute,
} from '@cumem/core-types';
import { copyFromHost, copyPointers, copyToHost, fillPattern, fillPointer } from './buffer-copy.js';
import { cancelRelease, deferRelease } from './buffer-release.js';
import { activeRuntime, type DriverRuntime } from './driver-runtime.js';
import { asView, type HostMemory, isHostMemory } from './host-memory.js';
import { detachViews, keepOwnerAlive, releaseAfterViews, trackView, type ViewList } from './host-views.js';
import { type IpcBufferDescriptor, readIpcDescriptor } from './ipc-descriptor.js';
import type { Release } from './object-finalizer.js';
import { rangeOverrun } from './pointer-range.js';
import { lookUpResource, registerResource, unregisterResource } from './resource-registry.js';
import type { Stream } from './stream.js';
import { type StreamOrderOptions, streamOption } from './stream-options.js';

/**
 * The base of every memory resource, as cuda.core's `MemoryResource`. Subclass it to hand your
 * own memory to cumem: implement `allocate`, `deallocate` and the accessors.
 */
export abstract class MemoryResource {
  /** @internal */ protected resourceUuid: string | null = null;
  /** @internal */ protected closed = false;

  /** `size` bytes, ordered on `options.stream` (default: the device's default stream; never waits). */
  abstract allocate(size: number, options?: StreamOrderOptions): Buffer;
  /** Returns memory from {@link allocate}; without a stream, in the order of the device's default stream. */
  abstract deallocate(pointer: bigint | number, size: number, options?: StreamOrderOptions): void;
  /** Buffers from this resource can be used by the device. */
  abstract get isDeviceAccessible(): boolean;
  /** Buffers from this resource can be read and written by the CPU. */
  abstract get isHostAccessible(): boolean;
  /** The device the memory is on, or -1 for host memory. */
  abstract get deviceId(): number;

  /** Buffers are CUDA managed (unified) memory. Default false. */
  get isManaged(): boolean {
    return false;
  }

  /** The resource is an IPC import of another process's pool (and refuses `allocate`). Default false. */
  get isMapped(): boolean {
    return false;
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** A universally unique id: set for IPC-enabled pools and by {@link register}, else null. */
  get uuid(): string | null {
    return this.resourceUuid;
  }

  /** Closes the resource; buffers already allocated can still be closed. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.resourceUuid !== null) unregisterResource(this.resourceUuid, this);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * Registers this resource under `uuid` (an imported pool under its exporter's uuid) so that
   * {@link MemoryResource.fromRegistry} finds it. Held weakly.
   * @returns the resource registered under `uuid`: an earlier one still alive, else this one.
   * @throws TypeError for a uuid that is not a non-empty string; RangeError when this resource already has another uuid.
   */
  register(uuid: string): MemoryResource {
    if (typeof uuid !== 'string' || uuid === '') {
      throw new TypeError(`uuid must be a non-empty string, got ${describeValue(uuid)}`);
    }
    if (this.closed) throw CudaStateError.closed(this.constructor.name);
    if (this.resourceUuid !== null && this.resourceUuid !== uuid) {
      throw new RangeError(`this memory resource already has uuid ${this.resourceUuid}, not ${uuid}`);
    }
    const registered = registerResource(uuid, this) as MemoryResource;
    if (registered === this) this.resourceUuid = uuid;
    return registered;
  }

  /**
   * The live resource registered under `uuid`.
   * @throws TypeError for a uuid that is not a string; RangeError when none is registered under it.
   */
  static fromRegistry(uuid: string): MemoryResource {
    if (typeof uuid !== 'string') throw new TypeError(`uuid must be a string, got ${describeValue(uuid)}`);
    const resource = lookUpResource(uuid);
    if (resource === undefined) throw new RangeError(`no memory resource is registered under uuid ${uuid}`);
    return resource as MemoryResource;
  }

  /** @internal Frees what a buffer owned; `stream` undefined: the resource's own order. Built-ins override it. */
  releaseBuffer(handle: bigint, size: number, stream: Stream | undefined): void {
    this.deallocate(handle, size, stream === undefined ? undefined : { stream });
  }

  /**
   * @internal `Buffer.fromHandle` hands this resource memory to free. Built-in resources record
   * it and refuse a pointer an open buffer of theirs owns already.
   */
  adoptBuffer(_handle: bigint, _size: number): void {}

  /** @internal Only IPC-enabled pools export buffers. */
  exportIpcBuffer(_handle: bigint, _size: number): IpcBufferDescriptor {
    throw new TypeError(
      `${this.constructor.name} buffers cannot be shared: ipcDescriptor needs a DeviceMemoryResource or ` +
        'PinnedMemoryResource created with { ipcEnabled: true }',
    );
  }

  /** @internal Only IPC pools import buffers. */
  importIpcBuffer(_bytes: Uint8Array, _size: number, _stream: Stream | undefined): Buffer {
    throw new TypeError(
      `Buffer.fromIpcDescriptor needs a DeviceMemoryResource or PinnedMemoryResource imported with fromAllocationHandle, got ${this.constructor.name}`,
    );
  }
}

/** Options for {@link Buffer.fromHandle}. */
export interface FromHandleOptions {
  /** The resource that owns the memory: `close()` (or GC) calls its `deallocate`. */
  readonly mr?: MemoryResource;
  /**
   * An object kept alive as long as the buffer, which owns the memory instead. When it is a
   * Buffer, or any object with a boolean `isClosed`, the new buffer is closed (and refuses all
   * work) once the owner is; host views taken through it belong to the owner's memory.
   */
  readonly owner?: unknown;
}

/** How external memory (no resource) is accessible, asked of the driver once. */
interface PointerInfo {
  readonly deviceId: number;
  readonly isDeviceAccessible: boolean;
  readonly isHostAccessible: boolean;
  readonly isManaged: boolean;
}

const owns = 1;
const closedFlag = 2;
const registered = 4;
// fromHandle's owner is a Buffer or has a boolean isClosed: this buffer is closed when it is.
const followsOwner = 8;
const bufferToken = Symbol('cumem.buffer');

/** @internal The constructor signature shared by Buffer and ManagedBuffer. */
export type BufferClass<B extends Buffer> = new (
  token: symbol,
  runtime: DriverRuntime,
  handle: bigint,
  size: number,
  resource: MemoryResource | null,
  owner: unknown,
  stream: Stream | undefined,
  flags: number,
  parent: Buffer | null,
) => B;

/**
 * A range of memory: device, page-locked host or managed. Made by a memory resource's
 * `allocate`, by {@link Buffer.fromHandle}, or by {@link Buffer.slice}.
 */
// Buffer is a DeferredRelease (buffer-release.ts) through members hidden from the published
// types (stripInternal): no `implements` clause, which would name them in the .d.ts.
export class Buffer {
  /** @internal */ readonly runtime: DriverRuntime;
  /** @internal */ readonly pointer: bigint;
  /** @internal */ readonly byteSize: number;
  /** @internal */ readonly resource: MemoryResource | null;
  /** @internal */ readonly allocationStream: Stream | undefined;
  /** @internal */ readonly parent: Buffer | null;
  private ownerObject: unknown;
  private flags: number;
  private info: PointerInfo | undefined = undefined;
  // The host views handed out over memory this buffer owns; null until the first one, so a
  // buffer that never made a view pays nothing on allocate and close.
  private views: ViewList | null = null;

  /** @internal Use a memory resource's `allocate`, {@link Buffer.fromHandle} or {@link Buffer.slice}. */
  constructor(
    token: symbol,
    runtime: DriverRuntime,
    handle: bigint,
    size: number,
    resource: MemoryResource | null,
    owner: unknown,
    stream: Stream | undefined,
    flags: number,
    parent: Buffer | null,
  ) {
    if (token !== bufferToken)
      throw new TypeError('use a memory resource, Buffer.fromHandle() or slice() to get a Buffer');
    this.runtime = runtime;
    this.pointer = handle;
    this.byteSize = size;
    this.resource = resource;
    this.ownerObject = owner;
    this.allocationStream = stream;
    this.flags = flags;
    this.parent = parent;
  }

  /**
   * Wraps memory cumem did not allocate. With `mr`, the buffer owns it and `close()` (or GC)
   * calls `mr.deallocate`; with `owner`, that object is kept alive instead; with neither, the
   * buffer only borrows the memory. On `ManagedBuffer` it returns a ManagedBuffer.
   *
   * Unsafe by nature for raw pointers: `size` is checked against the allocation the driver
   * knows (`CU_POINTER_ATTRIBUTE_RANGE_SIZE`), but memory the driver never saw (pageable host
   * memory, such as a pointer from native code's malloc) cannot be checked, and a wrong pointer
   * or size there reads and writes memory the buffer does not own.
   * @param pointer a bigint address or a non-negative safe integer.
   * @param size bytes.
   * @throws TypeError for `mr` and `owner` together, or an `mr` that is not a MemoryResource;
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
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class called on (Buffer or ManagedBuffer)
    const Class = this as unknown as BufferClass<B>;
    const buffer = new Class(
      bufferToken,
      runtime,
      handle,
      size,
      mr ?? null,
      owner ?? null,
      undefined,
      mr ? owns : followedOwner(owner),
      null,
    );
    buffer.checkWrapped();
    if (mr !== undefined && size > 0) {
      mr.adoptBuffer(handle, size);
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
    return this.ownerObject;
  }

  /** The device can use the memory. */
  get isDeviceAccessible(): boolean {
    return this.resource !== null ? this.resource.isDeviceAccessible : this.pointerInfo().isDeviceAccessible;
  }

  /** The CPU can read and write the memory (and {@link hostView} works). */
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
    const flags = this.flags;
    return (
      (flags & closedFlag) !== 0 ||
      this.parent?.isClosed === true ||
      ((flags & followsOwner) !== 0 && ownerIsClosed(this.ownerObject))
    );
  }

  /** What another process needs to open this buffer (see {@link Buffer.fromIpcDescriptor}). */
  get ipcDescriptor(): IpcBufferDescriptor {
    this.checkOpen();
    if (this.resource === null) {
      throw new TypeError(
        'external memory cannot be shared: ipcDescriptor needs a buffer from an IPC-enabled pool',
      );
    }
    return this.resource.exportIpcBuffer(this.pointer, this.byteSize);
  }

  /**
   * Returns the memory to its resource (when the buffer owns it), ordered on `options.stream`,
   * else on the stream it was allocated on; never waits. Harmless when already closed.
   * Host views handed out over the memory (through this buffer, its slices or wrappers) are
   * detached first and read as length 0; where the driver cannot detach them (FFI), the
   * buffer is closed at once but the memory goes back only after they were garbage-collected.
   */
  close(options?: StreamOrderOptions): void {
    const flags = this.flags;
    if ((flags & closedFlag) !== 0) return;
    const stream = options === undefined ? undefined : streamOption(options);
    this.flags = flags | closedFlag;
    if ((flags & owns) === 0) return;
    if ((flags & registered) !== 0) cancelRelease(this);
    if (this.byteSize === 0) return;
    const resource = this.resource as MemoryResource;
    const order = stream ?? this.allocationStream;
    if (this.views !== null) {
      const attached = detachViews(this.runtime.driver, this.views);
      this.views = null;
      if (attached !== null) {
        const { pointer, byteSize } = this;
        releaseAfterViews(attached, () =>
          // The stream may have been closed while the views lived: then the resource's own order.
          resource.releaseBuffer(pointer, byteSize, order?.isClosed === true ? undefined : order),
        );
        return;
      }
    }
    resource.releaseBuffer(this.pointer, this.byteSize, order);
  }

  [Symbol.dispose](): void {
    this.close();
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
    if (dstOrOptions instanceof Buffer || isHostMemory(dstOrOptions)) dst = dstOrOptions;
    else if (dstOrOptions !== undefined && maybeOptions === undefined) options = dstOrOptions;
    else if (dstOrOptions !== undefined)
      throw new TypeError(`dst must be a Buffer or JS memory, got ${describeValue(dstOrOptions)}`);
    const stream = this.checkStream(streamOption(options));
    this.checkOpen();
    if (dst === undefined) {
      if (this.resource === null)
        throw new TypeError('copyTo() without dst needs a buffer that has a memory resource');
      dst = this.resource.allocate(this.byteSize, stream === undefined ? undefined : { stream });
    }
    if (dst instanceof Buffer) {
      dst.checkOpen();
      checkSameSize(dst.byteSize, this.byteSize);
      copyPointers(this.runtime, dst.pointer, this.pointer, this.byteSize, stream, this.workDevice(dst));
    } else {
      const view = asView(dst);
      checkSameSize(view.byteLength, this.byteSize);
      copyToHost(this.runtime, view, this.pointer, this.isDeviceOnly(), stream, this.workDevice(null));
    }
    return dst;
  }

  /**
   * Copies `src` (a Buffer or JS memory of the same size) into this buffer.
   * @throws RangeError on a size mismatch; TypeError for another kind of `src`.
   */
  copyFrom(src: Buffer | HostMemory, options?: StreamOrderOptions): void {
    const stream = this.checkStream(streamOption(options));
    this.checkOpen();
    if (src instanceof Buffer) {
      src.checkOpen();
      checkSameSize(this.byteSize, src.byteSize);
      copyPointers(this.runtime, this.pointer, src.pointer, this.byteSize, stream, this.workDevice(src));
    } else if (isHostMemory(src)) {
      const view = asView(src);
      checkSameSize(this.byteSize, view.byteLength);
      copyFromHost(this.runtime, this.pointer, view, this.isDeviceOnly(), stream, this.workDevice(null));
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
    const stream = this.checkStream(streamOption(options));
    this.checkOpen();
    const pattern = fillPattern(value, this.byteSize, this.pointer);
    fillPointer(this.runtime, this.pointer, this.byteSize, pattern, stream, this.workDevice(null));
  }

  /**
   * A view of `length` bytes from `offset` (default: to the end) sharing this allocation. Its
   * owner is this buffer; closing it frees nothing, closing this buffer closes it too.
   * @throws RangeError when the range does not fit.
   */
  slice(offset: number, length?: number): this {
    checkSize(offset, 'offset');
    if (length !== undefined) checkSize(length, 'length');
    this.checkOpen();
    if (offset > this.byteSize)
      throw new RangeError(`offset ${offset} is past the end of a ${this.byteSize}-byte buffer`);
    const size = length ?? this.byteSize - offset;
    if (offset + size > this.byteSize) {
      throw new RangeError(
        `slice of ${size} bytes at offset ${offset} does not fit a ${this.byteSize}-byte buffer`,
      );
    }
    const Class = this.constructor as BufferClass<this>;
    const view = new Class(
      bufferToken,
      this.runtime,
      this.pointer + BigInt(offset),
      size,
      this.resource,
      this,
      undefined,
      0,
      this,
    );
    view.info = this.info;
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
    this.checkOpen();
    if (!this.isHostAccessible) {
      throw new TypeError(
        'hostView() needs host-accessible memory (pinned or managed); copy device memory with copyTo()',
      );
    }
    const view = this.runtime.driver.hostView(this.pointer, this.byteSize);
    if (this.byteSize !== 0) this.memoryOwner().recordView(view.buffer as ArrayBuffer);
    return view;
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
    const flags = this.flags;
    if (
      (flags & closedFlag) !== 0 ||
      this.parent?.isClosed === true ||
      ((flags & followsOwner) !== 0 && ownerIsClosed(this.ownerObject))
    ) {
      throw CudaStateError.closed(this.typeName);
    }
  }

  /** @internal The buffer whose memory this one shows: through slices' parents and owner buffers. */
  memoryOwner(): Buffer {
    let buffer: Buffer = this;
    for (;;) {
      if (buffer.parent !== null) buffer = buffer.parent;
      else {
        const next = (buffer.flags & followsOwner) !== 0 ? bufferOfOwnerObject(buffer.ownerObject) : null;
        if (next === null) return buffer;
        buffer = next;
      }
    }
  }

  /** A view of this buffer's memory keeps it alive; memory it owns detaches the view on close. */
  private recordView(view: ArrayBuffer): void {
    keepOwnerAlive(view, this);
    if ((this.flags & owns) !== 0) this.views = trackView(this.views, view);
  }

  /** @internal The stream, refused when it belongs to another driver. */
  protected checkStream(stream: Stream | undefined): Stream | undefined {
    if (stream !== undefined && stream.runtime !== this.runtime) {
      throw new CudaStateError(
        `the stream belongs to driver ${stream.runtime.driver.name}, this ${this.typeName} to ${this.runtime.driver.name}`,
      );
    }
    return stream;
  }

  /** @internal Plain device memory: the device can use it and the CPU cannot (not pinned, not managed). */
  isDeviceOnly(): boolean {
    return this.isDeviceAccessible && !this.isHostAccessible;
  }

  /** @internal The device to order work on when no stream is given. */
  workDevice(other: Buffer | null): number {
    const own = this.deviceId;
    if (own >= 0) return own;
    if (other !== null && other.deviceId >= 0) return other.deviceId;
    return this.runtime.currentDevice;
  }

  /** @internal */
  needsFinalizer(): boolean {
    return (this.flags & (owns | closedFlag)) === owns;
  }

  /** @internal */
  finalizerRelease(): Release {
    const { resource, pointer, byteSize, allocationStream } = this;
    return () => (resource as MemoryResource).releaseBuffer(pointer, byteSize, allocationStream);
  }

  /** @internal */
  markRegistered(): void {
    this.flags |= registered;
  }

  /** @internal Checks external memory handed to fromHandle; ManagedBuffer insists on managed memory. */
  protected checkWrapped(): void {}

  /** @internal How external memory is accessible, from pointer attributes (asked once). */
  protected pointerInfo(): PointerInfo {
    if (this.info === undefined) {
      this.info = this.parent !== null ? this.parent.pointerInfo() : queryPointer(this.runtime, this.pointer);
    }
    return this.info;
  }
}

/**
 * An object given as `owner` to {@link Buffer.fromHandle} may expose, under this symbol, the
 * Buffer holding the memory it shows (interop-arrow's CudaBuffer and HostBuffer do): host views
 * taken through the wrapper are then kept alive with, and detached by, that Buffer's owner.
 */
export const ownerMemoryBuffer: unique symbol = Symbol.for('@cumem/memory.ownerMemoryBuffer');

/** fromHandle's flag for an owner whose close closes the wrapper: a Buffer or an object with a boolean isClosed. */
function followedOwner(owner: unknown): number {
  if (owner instanceof Buffer) return followsOwner;
  if (typeof owner !== 'object' && typeof owner !== 'function') return 0;
  if (owner === null) return 0;
  return typeof (owner as { isClosed?: unknown }).isClosed === 'boolean' ? followsOwner : 0;
}

function ownerIsClosed(owner: unknown): boolean {
  return (owner as { isClosed?: unknown }).isClosed === true;
}

/** The Buffer an owner stands for: itself, or what it exposes under {@link ownerMemoryBuffer}. */
function bufferOfOwnerObject(owner: unknown): Buffer | null {
  if (owner instanceof Buffer) return owner;
  const held = (owner as { [ownerMemoryBuffer]?: unknown })[ownerMemoryBuffer];
  return held instanceof Buffer ? held : null;
}

function checkSameSize(dstSize: number, srcSize: number): void {
  if (dstSize !== srcSize) {
    throw new RangeError(`size mismatch: the destination has ${dstSize} bytes, the source ${srcSize}`);
  }
}

function queryPointer(runtime: DriverRuntime, pointer: bigint): PointerInfo {
  const driver = runtime.driver;
  let memoryType: number;
  try {
    memoryType = driver.pointerGetAttribute(pointer, PointerAttribute.MemoryType);
  } catch (error) {
    // The driver answers CUDA_ERROR_INVALID_VALUE for memory it never saw: ordinary pageable
    // host memory, which only the CPU can touch (cuda.core reads it the same way).
    if (CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_INVALID_VALUE') {
      return { deviceId: -1, isDeviceAccessible: false, isHostAccessible: true, isManaged: false };
    }
    throw error;
  }
  const isManaged = driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged) !== 0;
  if (memoryType === MemoryType.Host && !isManaged) {
    return { deviceId: -1, isDeviceAccessible: true, isHostAccessible: true, isManaged: false };
  }
  const deviceId = driver.pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal);
  return { deviceId, isDeviceAccessible: true, isHostAccessible: isManaged, isManaged };
}

/** @internal A buffer a resource allocated (it owns the memory). Hot path: one object, no validation. */
export function allocatedBuffer<B extends Buffer>(
  Class: BufferClass<B>,
  runtime: DriverRuntime,
  handle: bigint,
  size: number,
  resource: MemoryResource,
  stream: Stream | undefined,
): B {
  const buffer = new Class(bufferToken, runtime, handle, size, resource, null, stream, owns, null);
  if (size !== 0) deferRelease(buffer);
  return buffer;
}
