// Page-locked host memory (pyarrow.cuda's HostBuffer), allocated through @cumem/memory's
// pinned resources. Its `bytes` view is zero-copy; while any view of that memory is
// reachable the HostBuffer stays alive (a WeakMap keyed by the view's ArrayBuffer holds it),
// so an Arrow table built over pinned memory can never outlive the memory. close() detaches
// the views (they read as length 0) or, on the FFI adapter, which cannot detach, returns the
// memory only once they were garbage-collected (@cumem/memory's safety contract).

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkOptions,
  checkSize,
  Device,
  describeValue,
  guardMembers,
  hex,
  objectDescription,
} from '@cumem/core-types';
import { Buffer as MemoryBuffer, ObjectBrand, ownerMemoryBuffer } from '@cumem/memory';
import { bufferState, hostViewWrappers, makeDeviceCurrent, sharedHostResource } from '@cumem/memory/internal';

const { hostViewWrapper, wrapHostView } = hostViewWrappers;

const constructing = Symbol('HostBuffer');
/** @internal The one test of a real HostBuffer (memory's ObjectBrand over {@link HostBuffer.isHostBuffer}). */
export const hostBufferBrand: ObjectBrand<HostBuffer> = new ObjectBrand<HostBuffer>(
  'HostBuffer of @cumem/interop-arrow',
  (value) => HostBuffer.isHostBuffer(value),
);

/** Page-locked (pinned) host memory that devices copy to and from at full speed. */
export class HostBuffer {
  // An empty HostBuffer holds an empty Buffer: the Buffer's isClosed is the one closed state.
  readonly #memory: MemoryBuffer;
  #bytes: Uint8Array;
  readonly #address: bigint;
  readonly #size: number;
  readonly #device: Device;

  /**
   * Not for use: get a HostBuffer from {@link newHostBuffer}. Called directly, it throws a
   * TypeError naming it.
   */
  private constructor(token: symbol, memory: MemoryBuffer, device: Device) {
    if (token !== constructing) {
      throw new TypeError("Do not call HostBuffer's constructor directly, use newHostBuffer(size) instead");
    }
    this.#memory = memory;
    this.#device = device;
    this.#address = bufferState(memory).pointer;
    this.#bytes = bufferState(memory).size === 0 ? new Uint8Array(0) : bufferState(memory).hostView();
    this.#size = this.#bytes.byteLength;
    if (this.#size > 0) wrapHostView(this.#bytes.buffer, this);
    // No own property can shadow a getter (address, size, bytes) of a real HostBuffer.
    Object.freeze(this);
  }

  /**
   * Whether `value` is a HostBuffer made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isHostBuffer(value: unknown): value is HostBuffer {
    return typeof value === 'object' && value !== null && #memory in value;
  }

  /** Size in bytes. */
  get size(): number {
    return this.#size;
  }

  /** Host address of the first byte (`0n` for an empty buffer). */
  get address(): bigint {
    return this.#address;
  }

  /** Always true: the memory is on the host. */
  get isCpu(): true {
    return true;
  }

  /** The device whose context allocated the memory. */
  get device(): Device {
    return this.#device;
  }

  /** True after {@link close}. */
  get isClosed(): boolean {
    return bufferState(this.#memory).isClosed;
  }

  /**
   * A zero-copy `Uint8Array` over the pinned memory. Views of it keep this HostBuffer alive;
   * {@link close} detaches them (length 0), or where the driver cannot detach (FFI) keeps the
   * memory until they are garbage-collected.
   */
  get bytes(): Uint8Array {
    if (bufferState(this.#memory).isClosed) throw CudaStateError.closed('HostBuffer');
    return this.#bytes;
  }

  /** A copy of the contents. */
  toBytes(): Uint8Array {
    return this.bytes.slice();
  }

  /** The @cumem/memory Buffer holding the memory (null when empty); see `ownerMemoryBuffer`. */
  get [ownerMemoryBuffer](): MemoryBuffer | null {
    return this.#size === 0 ? null : this.#memory;
  }

  /**
   * Frees the pinned memory (idempotent). Views of {@link bytes} are detached (length 0); on the
   * FFI adapter, which cannot detach them, the memory is freed once they are garbage-collected.
   */
  close(): void {
    if (bufferState(this.#memory).isClosed) return;
    // Not holding the view any more lets the FFI adapter free the memory once callers drop theirs.
    this.#bytes = new Uint8Array(0);
    bufferState(this.#memory).close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('HostBuffer', HostBuffer.isHostBuffer, (buffer) => ({
    address: hex(buffer.#address),
    size: buffer.#size,
    device: buffer.#device.ordinal,
    closed: bufferState(buffer.#memory).isClosed,
  }));

  /** `HostBuffer(address: 0x7f0000000000, size: 4096, device: 0, closed: false)`: pinned host memory. */
  toString(): string {
    return HostBuffer.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link HostBuffer.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return HostBuffer.#description.inspect(this, depth, options, nodeInspect);
  }
}

/** The HostBuffer whose memory `buffer` is, if any: used to copy pinned data without staging. */
export function pinnedOwnerOf(buffer: ArrayBufferLike): HostBuffer | undefined {
  const owner = hostViewWrapper(buffer);
  return hostBufferBrand.has(owner) ? owner : undefined;
}

/**
 * The open {@link HostBuffer} whose page-locked memory `data` (a typed array, DataView or
 * ArrayBuffer) lies in, or undefined for ordinary (pageable) JS memory. A cumem extension: use it
 * to check that an Arrow table's columns are pinned (then `tableToDevice` copies them straight
 * to the device), or to `close()` the memory behind a {@link newHostArray} early.
 */
export function hostBufferOf(data: ArrayBufferView | ArrayBufferLike): HostBuffer | undefined {
  if (ArrayBuffer.isView(data)) return pinnedOwnerOf(data.buffer);
  if (data instanceof ArrayBuffer || data instanceof SharedArrayBuffer) return pinnedOwnerOf(data);
  return undefined;
}

/** Options of {@link newHostBuffer}. */
export interface NewHostBufferOptions {
  /** Device (ordinal or Device) whose context allocates the memory. Default 0. */
  readonly device?: number | Device;
  /**
   * `'legacy'` (default): `cuMemHostAlloc`, as pyarrow.cuda. `'pool'`: a stream-ordered pinned
   * pool (fast to allocate again after a free; needs `capabilities.hostMemoryPools`, else legacy).
   */
  readonly allocator?: 'legacy' | 'pool';
}

function toDevice(value: unknown): Device {
  if (value instanceof Device) return value;
  return new Device(checkSize(value, 'device'));
}

/**
 * Allocates `size` bytes of page-locked host memory (pyarrow's `new_host_buffer`).
 * @param size bytes; 0 gives an empty buffer without allocating.
 */
export function newHostBuffer(size: number, options?: NewHostBufferOptions): HostBuffer {
  checkSize(size, 'size');
  const { device = 0, allocator = 'legacy' } = checkOptions(options);
  const target = toDevice(device);
  if (allocator !== 'legacy' && allocator !== 'pool') {
    throw new TypeError(`allocator must be 'legacy' or 'pool', got ${describeValue(allocator)}`);
  }
  const HostBufferClass = HostBuffer as unknown as new (
    token: symbol,
    memory: MemoryBuffer,
    device: Device,
  ) => HostBuffer;
  if (size === 0) return new HostBufferClass(constructing, MemoryBuffer.fromHandle(0n, 0), target);
  makeDeviceCurrent(target);
  return new HostBufferClass(constructing, sharedHostResource(allocator).allocate(size), target);
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(HostBuffer, HostBuffer.isHostBuffer, ['toString', inspect.custom]);
