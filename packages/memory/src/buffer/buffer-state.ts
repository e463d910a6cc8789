// What a Buffer is: its memory (address, size, driver, resource), where it came from (a
// resource's allocate, Buffer.fromHandle, slice) and where it stands (closed or not, host views
// handed out, its finalizer). Every Buffer holds one BufferState in a private field
// (buffer-base.ts), and cumem reads a buffer only through it: a Buffer is an ordinary, extensible
// object, so a program may give it own properties or another prototype, and only the program's
// own reads may see those, never what cumem reads to copy, free or check memory.
import { CudaStateError } from '@cumem/core-types';
import type { ByteArrayInterface } from '../interop/byte-array-interface.js';
import type { DLPackCapsule, ToDLPackOptions } from '../interop/dlpack/dlpack-capsule.js';
import type { IpcBufferDescriptor } from '../interop/ipc/ipc-descriptor.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import type { StreamOrderOptions } from '../stream/stream-options.js';
import type { BufferBase } from './buffer-base.js';
import type { ReleaseRecord } from './buffer-release.js';
import type { ViewList } from './host-views.js';
import type { MemoryFacts } from './memory-facts.js';
import { type MemoryResource, memoryFactsOf } from './memory-resource.js';
import { queryPointer } from './pointer-info.js';

/**
 * What a buffer's class decides (Buffer, ManagedBuffer, VirtualBuffer): its name, how its slices
 * are made, and the class's own members as buffer.ts defines them. A buffer's kind is a fact of
 * its state, not of its prototype or `constructor`, which a program can change: its slices are
 * made as its kind, messages name it, and cumem's own callers reach the members through it
 * (BufferState's methods), never through the buffer, whose members a program can replace.
 */
export interface BufferKind {
  /** The class name, in messages. */
  readonly name: string;
  /** Makes a buffer of the kind's class around `state` (the one holder of the construction token). */
  make(state: BufferState): BufferBase;
  /** Slices are recorded with the resource: a VirtualMemoryResource refuses to shrink under an open one. */
  readonly recordsSlices: boolean;
  // buffer.ts, the exchange formats and the resources read buffers through buffer-base.ts, which
  // therefore cannot import them: the members that use them come with the kind, built in buffer.ts.
  /** `buffer.toDLPack(options)`. */
  toDLPack(buffer: BufferBase, options: ToDLPackOptions | undefined): DLPackCapsule;
  /** `buffer.cudaArrayInterface`. */
  cudaArrayInterface(buffer: BufferBase): ByteArrayInterface;
  /** `buffer.close(options)`. */
  close(buffer: BufferBase, options: StreamOrderOptions | undefined): void;
  /** `buffer.hostView()`. */
  hostView(buffer: BufferBase): Uint8Array;
  /** `buffer.ipcDescriptor`. */
  ipcDescriptor(buffer: BufferBase): IpcBufferDescriptor;
  // Freeing goes through the resource, whose books flush the finalizer batch: buffer-release.ts
  // cannot import it either.
  /**
   * Called when a buffer that owns memory outlives its finalizer batch: records its pointer with
   * the resource, and returns the function that frees the memory if the buffer is dropped
   * (holding none of the buffer).
   */
  finalizerRelease(state: BufferState): () => void;
}

/** What a VirtualMemoryResource is told of each slice of its buffers. */
export interface SliceRecorder {
  noteSlice(slice: BufferBase): void;
}

/** Something whose close closes a buffer: its parent's state, or the `owner` given to fromHandle. */
interface ClosesWith {
  readonly isClosed: unknown;
}

/** What {@link BufferState.wrapped} is told of memory `Buffer.fromHandle` wraps. */
interface WrappedMemory {
  readonly kind: BufferKind;
  readonly runtime: DriverRuntime;
  readonly pointer: bigint;
  readonly size: number;
  /** The resource that frees the memory (the buffer owns it), or null. */
  readonly mr: MemoryResource | null;
  /** What the `owner` getter shows (null with `mr`). */
  readonly owner: unknown;
  /** What the buffer is closed with: a Buffer owner's state, an owner with a boolean `isClosed`, or null. */
  readonly closesWith: ClosesWith | null;
  /** The state of the buffer whose memory the owner shows, or null. */
  readonly sharesMemoryOf: BufferState | null;
}

/**
 * The state of one Buffer, made by one of the three construction paths below. Only
 * @cumem/memory and, through `bufferState` of '@cumem/memory/internal', cumem's own packages
 * read it; only @cumem/memory writes it.
 */
export class BufferState {
  /** The buffer this is the state of (set by its constructor). */
  buffer: BufferBase = undefined as unknown as BufferBase;
  readonly kind: BufferKind;
  readonly runtime: DriverRuntime;
  /** The address (a unified-address pointer). */
  readonly pointer: bigint;
  /** In bytes; changed only when a VirtualMemoryResource resizes the allocation in place. */
  size: number;
  /** The resource the memory came from (a slice's: its parent's), or null for external memory. */
  readonly resource: MemoryResource | null;
  /** The stream the memory was allocated on, if any: close() is ordered there by default. */
  allocationStream: Stream | undefined = undefined;
  /** The buffer frees its memory through `resource` on close (or when dropped). */
  ownsMemory = false;
  /** `close()` ran. */
  closed = false;
  /** A slice's parent. */
  parent: BufferState | null = null;
  /** What the `owner` getter shows: a slice's parent, fromHandle's owner, or null. */
  owner: unknown = null;
  /** Closed when this is: the parent (slices) or a followed fromHandle owner; else null. */
  closesWith: ClosesWith | null = null;
  /** The buffer whose memory this one shows (slices: the parent; wrappers: the owner buffer), or null. */
  sharesMemoryOf: BufferState | null = null;
  /** The host views handed out over memory this buffer owns (detached on close); null until the first. */
  views: ViewList | null = null;
  /** Queued in the finalizer batch (buffer-release.ts) and not yet registered. */
  inFinalizerBatch = false;
  /** The finalizer's record once the buffer outlived its batch; close() cancels it. */
  releaseRecord: ReleaseRecord | null = null;
  // What the driver says of memory no resource owns (fromHandle without mr), asked once. A
  // resource's facts stay with the resource (memory-resource.ts), recorded once for all its buffers.
  #externalFacts: MemoryFacts | undefined = undefined;

  private constructor(
    kind: BufferKind,
    runtime: DriverRuntime,
    pointer: bigint,
    size: number,
    resource: MemoryResource | null,
  ) {
    this.kind = kind;
    this.runtime = runtime;
    this.pointer = pointer;
    this.size = size;
    this.resource = resource;
  }

  /**
   * The state of memory a resource just allocated: the buffer owns it. Positional, unlike
   * {@link BufferState.wrapped}: allocate's hot path makes the buffer and its state and nothing else.
   */
  static allocated(
    kind: BufferKind,
    resource: MemoryResource,
    runtime: DriverRuntime,
    pointer: bigint,
    size: number,
    allocationStream: Stream | undefined,
  ): BufferState {
    const state = new BufferState(kind, runtime, pointer, size, resource);
    state.allocationStream = allocationStream;
    state.ownsMemory = true;
    return state;
  }

  /** The state of memory `Buffer.fromHandle` wraps: owned through `mr`, or kept alive by `owner`. */
  static wrapped(options: WrappedMemory): BufferState {
    const { kind, runtime, pointer, size, mr, owner, closesWith, sharesMemoryOf } = options;
    const state = new BufferState(kind, runtime, pointer, size, mr);
    state.ownsMemory = mr !== null;
    state.owner = owner;
    state.closesWith = closesWith;
    state.sharesMemoryOf = sharesMemoryOf;
    return state;
  }

  /** The state of `size` bytes at `offset` into `parent`'s memory: a slice owns nothing. */
  static sliceOf(parent: BufferState, offset: number, size: number): BufferState {
    const state = new BufferState(
      parent.kind,
      parent.runtime,
      parent.pointer + BigInt(offset),
      size,
      parent.resource,
    );
    state.parent = parent;
    state.owner = parent.buffer;
    state.closesWith = parent;
    state.sharesMemoryOf = parent;
    return state;
  }

  /** Closed: `close()` ran on it or on the buffer it slices, or the owner it follows is closed. */
  get isClosed(): boolean {
    return this.closed || (this.closesWith !== null && this.closesWith.isClosed === true);
  }

  /** @throws CudaStateError naming the buffer's class when it is closed. */
  checkOpen(): void {
    if (this.isClosed) throw CudaStateError.closed(this.kind.name);
  }

  /** The class name, in messages: `Buffer`, `ManagedBuffer`. */
  get typeName(): string {
    return this.kind.name;
  }

  /** The buffer whose memory this one shows: through slices' parents and owner buffers. */
  get memoryOwner(): BufferBase {
    let state: BufferState = this;
    while (state.sharesMemoryOf !== null) state = state.sharesMemoryOf;
    return state.buffer;
  }

  /**
   * The state whose facts a batch check asks once per run of elements: null for a buffer closed
   * itself or following a fromHandle owner (ask its `isClosed`), else the parent of a slice
   * (which shares its driver, resource and pointer attributes), this state otherwise.
   */
  get group(): BufferState | null {
    if (this.closed || (this.closesWith !== null && this.closesWith !== this.parent)) return null;
    return this.parent ?? this;
  }

  /** The device the memory is on, or -1 for host memory. */
  get deviceId(): number {
    return this.#facts().deviceId;
  }

  /** The device can use the memory. */
  get isDeviceAccessible(): boolean {
    return this.#facts().isDeviceAccessible;
  }

  /** The CPU can read and write the memory. */
  get isHostAccessible(): boolean {
    return this.#facts().isHostAccessible;
  }

  /** The memory is CUDA managed (unified) memory. */
  get isManaged(): boolean {
    return this.#facts().isManaged;
  }

  /** Plain device memory: the device can use it and the CPU cannot (not pinned, not managed). */
  get isDeviceOnly(): boolean {
    const facts = this.#facts();
    return facts.isDeviceAccessible && !facts.isHostAccessible;
  }

  /** `buffer.close(options)` as Buffer defines it, whatever a program put on the buffer or its prototype. */
  close(options?: StreamOrderOptions): void {
    this.kind.close(this.buffer, options);
  }

  /** `buffer.hostView()` as Buffer defines it (see {@link BufferState.close}). */
  hostView(): Uint8Array {
    return this.kind.hostView(this.buffer);
  }

  /** `buffer.ipcDescriptor` as Buffer defines it (see {@link BufferState.close}). */
  ipcDescriptor(): IpcBufferDescriptor {
    return this.kind.ipcDescriptor(this.buffer);
  }

  /** `buffer.toDLPack(options)` as BufferBase defines it (see {@link BufferState.close}). */
  toDLPack(options?: ToDLPackOptions): DLPackCapsule {
    return this.kind.toDLPack(this.buffer, options);
  }

  /** The device to order work on when no stream is given: this memory's, else `other`'s, else the current one. */
  workDevice(other: BufferState | null): number {
    const own = this.#facts().deviceId;
    if (own >= 0) return own;
    if (other !== null) {
      const others = other.deviceId;
      if (others >= 0) return others;
    }
    return this.runtime.currentDevice;
  }

  // Where the memory lives and who can use it (memory-facts.ts): its resource's facts, else the
  // driver's answer (a slice asks its parent).
  #facts(): MemoryFacts {
    if (this.resource !== null) return memoryFactsOf(this.resource);
    if (this.#externalFacts === undefined) {
      this.#externalFacts =
        this.parent !== null ? this.parent.#facts() : queryPointer(this.runtime, this.pointer);
    }
    return this.#externalFacts;
  }
}
