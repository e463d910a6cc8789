// pyarrow.cuda's CudaBuffer: a range of device memory with pyarrow's copy and slice rules.
// Copies go to @cumem/memory's per-device default stream and return when done (pyarrow's
// copies are synchronous too).

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkOptions,
  describeValue,
  guardMembers,
  hex,
  objectDescription,
} from '@cumem/core-types';
import {
  type ByteArrayInterface,
  bufferBrand,
  byteArrayInterface,
  defaultStream,
  Buffer as MemoryBuffer,
  ObjectBrand,
  ownerMemoryBuffer,
} from '@cumem/memory';
import { bufferState, copyBetweenDevices } from '@cumem/memory/internal';
import type { Context } from '../context/context.js';
import { contextForDevice, contextState, enterContext } from '../context/context-internals.js';
import { type HostData, hostBytes } from '../host/host-bytes.js';
import { checkHostDestination, newHostDestination } from '../host/host-destination.js';
import type { CudaBufferInit } from './cuda-buffer-init.js';
import { exportWholeAllocation } from './cuda-buffer-ipc.js';
import type { CopyIntoOptions, CopyToHostOptions } from './cuda-buffer-options.js';
import { readRange, writeRanges } from './host-copies.js';
import { type IpcMemHandle, makeIpcMemHandle } from './ipc-mem-handle.js';
import {
  resolveCopyInto,
  resolveCopyToGivenHost,
  resolveCopyToNewHost,
  resolveSlice,
} from './position-rules.js';

export type { CopyIntoOptions, CopyToHostOptions } from './cuda-buffer-options.js';

const constructing = Symbol('CudaBuffer');
/** @internal The one test of a real CudaBuffer (memory's ObjectBrand over {@link CudaBuffer.isCudaBuffer}). */
export const cudaBufferBrand: ObjectBrand<CudaBuffer> = new ObjectBrand<CudaBuffer>(
  'CudaBuffer of @cumem/interop-arrow',
  (value) => CudaBuffer.isCudaBuffer(value),
);
let viewOf: (parent: CudaBuffer, offset: number, length: number) => CudaBuffer;

/** Device memory, with pyarrow.cuda's copy, slice and IPC rules. Create it from a {@link Context}. */
export class CudaBuffer {
  readonly #init: CudaBufferInit;

  static {
    viewOf = (parent, offset, length) => {
      const address = parent.address + BigInt(offset);
      return createCudaBuffer({
        ...parent.#init,
        address,
        size: length,
        parent,
        memory: MemoryBuffer.fromHandle(address, length, { owner: parent.#init.memory }),
      });
    };
  }

  /**
   * Not for use: get a CudaBuffer from a {@link Context} (`deviceBuffer`, `bufferFromData`,
   * `bufferFromObject`, `foreignBuffer`, `openIpcBuffer`) or {@link CudaBuffer.fromBuffer}.
   * Called directly, it throws a TypeError naming `Context.deviceBuffer`.
   */
  private constructor(token: symbol, init: CudaBufferInit) {
    if (token !== constructing) {
      throw new TypeError(
        "Do not call CudaBuffer's constructor directly, use Context.deviceBuffer(size) instead",
      );
    }
    this.#init = init;
    // No own property can shadow a getter (address, size, ...) of a real CudaBuffer.
    Object.freeze(this);
  }

  /**
   * Whether `value` is a CudaBuffer made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isCudaBuffer(value: unknown): value is CudaBuffer {
    return typeof value === 'object' && value !== null && #init in value;
  }

  /** Device address of the first byte (`0n` for an empty buffer). */
  get address(): bigint {
    return this.#init.address;
  }

  /** Size in bytes. */
  get size(): number {
    return this.#init.size;
  }

  /** The context (device) the memory belongs to. */
  get context(): Context {
    return this.#init.context;
  }

  /** Always false: the memory is on a device (or seen through the device's address space). */
  get isCpu(): false {
    return false;
  }

  /** False for views of read-only memory (a read-only `cudaArrayInterface`). */
  get isMutable(): boolean {
    return this.#init.mutable;
  }

  /** The buffer this one is a slice of, or null. */
  get parent(): CudaBuffer | null {
    return this.#init.parent;
  }

  /** The object this buffer keeps alive (foreign memory's owner), or null. */
  get base(): unknown {
    return this.#init.base ?? null;
  }

  /** True once this buffer, the allocation it views, or the object it views was closed. */
  get isClosed(): boolean {
    return bufferState(this.#init.memory).isClosed;
  }

  /** CUDA Array Interface v3 of a 1-D uint8 array (pyarrow's `to_numba`); read-only when not mutable. */
  get cudaArrayInterface(): ByteArrayInterface {
    return byteArrayInterface(this.#init.memory, this.address, this.size, !this.isMutable);
  }

  /** The @cumem/memory Buffer holding this memory (see `ownerMemoryBuffer` in @cumem/memory). */
  get [ownerMemoryBuffer](): MemoryBuffer {
    return this.#init.memory;
  }

  #check(): void {
    if (this.isClosed) throw CudaStateError.closed('CudaBuffer');
  }

  /**
   * Copies host bytes into this buffer at `position` (pyarrow `copy_from_host`).
   * @returns the number of bytes copied.
   */
  copyFromHost(data: HostData, options?: CopyIntoOptions): number {
    const source = hostBytes(data, 'data');
    const { position = 0, nbytes = -1 } = checkOptions(options);
    const range = resolveCopyInto(this.size, source.byteLength, position, nbytes, 'host buffer');
    this.#check();
    this.#writable();
    if (range.nbytes > 0) {
      writeRanges(this, [{ offset: range.position, bytes: source.subarray(0, range.nbytes) }], {
        staging: 'auto',
      });
    }
    return range.nbytes;
  }

  /**
   * Copies device bytes from `position` to the host (pyarrow `copy_to_host`). Without `buf`
   * new memory of the copied size is returned (page-locked from 1 MiB up unless `output` says otherwise); with `buf`, a Uint8Array over all of `buf`.
   */
  copyToHost(options?: CopyToHostOptions): Uint8Array {
    const { position = 0, nbytes = -1, buf, output } = checkOptions(options);
    const destination = checkHostDestination(output);
    let target: Uint8Array;
    let range: { position: number; nbytes: number };
    if (buf === undefined) {
      range = resolveCopyToNewHost(this.size, position, nbytes);
      this.#check();
      target = newHostDestination(range.nbytes, destination, this.context.deviceNumber);
    } else {
      target = hostBytes(buf, 'buf');
      range = resolveCopyToGivenHost(this.size, target.byteLength, position, nbytes);
      this.#check();
    }
    if (range.nbytes > 0) readRange(this, range.position, target.subarray(0, range.nbytes));
    return target;
  }

  /**
   * Copies from another device buffer (any device) into this one at `position`
   * (pyarrow `copy_from_device`).
   * @returns the number of bytes copied.
   */
  copyFromDevice(buf: CudaBuffer, options?: CopyIntoOptions): number {
    cudaBufferBrand.check(buf, 'buf');
    const { position = 0, nbytes = -1 } = checkOptions(options);
    const range = resolveCopyInto(this.size, buf.size, position, nbytes, 'device buffer');
    this.#check();
    buf.#check();
    this.#writable();
    if (range.nbytes > 0) {
      // On the destination's default stream; between devices by @cumem/memory's policy: one
      // cuMemcpyAsync when this device reaches the source, else cuMemcpyPeerAsync.
      const state = contextState(this.context);
      enterContext(state);
      const from = contextState(buf.context).device.ordinal;
      const to = state.device.ordinal;
      const at = this.address + BigInt(range.position);
      const stream = defaultStream(state.device);
      copyBetweenDevices(at, to, buf.address, from, range.nbytes, stream);
      stream.sync();
    }
    return range.nbytes;
  }

  /**
   * A zero-copy view from `offset` of `length` bytes (default: to the end). A length past
   * the end is clamped to what is available; `offset` must be inside the buffer. The view keeps
   * this buffer alive (as its `parent`) and is closed when this buffer is.
   */
  slice(offset = 0, length?: number): CudaBuffer {
    const range = resolveSlice(this.size, offset, length);
    this.#check();
    return createView(this, range.offset, range.length);
  }

  /** True when `other` has the same size and bytes (device or host memory). */
  equals(other: CudaBuffer | HostData): boolean {
    const mine = this.copyToHost({ output: 'pageable' });
    const theirs = cudaBufferBrand.has(other)
      ? other.copyToHost({ output: 'pageable' })
      : hostBytes(other, 'other');
    if (mine.byteLength !== theirs.byteLength) return false;
    for (let i = 0; i < mine.byteLength; i++) if (mine[i] !== theirs[i]) return false;
    return true;
  }

  /** The contents as lowercase hexadecimal. */
  hex(): string {
    const bytes = this.copyToHost({ output: 'pageable' });
    return globalThis.Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  }

  /** A host copy of the whole buffer. */
  toBytes(): Uint8Array {
    return this.copyToHost();
  }

  /**
   * Exports the memory for another process (`cuIpcGetMemHandle`). Only memory this package
   * allocated (`deviceBuffer`, `bufferFromData`) can be exported, from its first byte; the
   * exporting process keeps the buffer open while others use it.
   */
  exportForIpc(): IpcMemHandle {
    this.#check();
    if (this.size === 0) return makeIpcMemHandle(0, new Uint8Array(0));
    let root: CudaBuffer = this;
    while (root.#init.parent !== null) root = root.#init.parent;
    return exportWholeAllocation(this, root, bufferState(root.#init.memory).resource);
  }

  /**
   * This memory as a @cumem/memory Buffer, without copying. The Buffer keeps this CudaBuffer
   * alive and is closed (refusing all work) once this CudaBuffer is.
   */
  toMemoryBuffer(): MemoryBuffer {
    this.#check();
    return MemoryBuffer.fromHandle(this.address, this.size, { owner: this });
  }

  /**
   * Frees the memory if this buffer owns it (idempotent); views of it become closed too. A
   * view's close() only closes the view.
   */
  close(): void {
    bufferState(this.#init.memory).close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('CudaBuffer', CudaBuffer.isCudaBuffer, (buffer) => {
    const init = buffer.#init;
    return {
      address: hex(init.address),
      size: init.size,
      device: contextState(init.context).device.ordinal,
      mutable: init.mutable,
      view: init.parent !== null,
      closed: bufferState(init.memory).isClosed,
    };
  });

  /** `CudaBuffer(address: 0x7f0000000000, size: 4096, device: 0, mutable: true, view: false, closed: false)`. */
  toString(): string {
    return CudaBuffer.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link CudaBuffer.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return CudaBuffer.#description.inspect(this, depth, options, nodeInspect);
  }

  #writable(): void {
    if (!this.#init.mutable) throw new TypeError('this CudaBuffer views read-only memory');
  }

  /** A CudaBuffer view of `buf`: itself for a CudaBuffer, a zero-copy view of a device-accessible memory Buffer. */
  static fromBuffer(buf: CudaBuffer | MemoryBuffer): CudaBuffer {
    if (cudaBufferBrand.has(buf)) return buf;
    if (bufferBrand.has(buf)) return CudaBuffer.fromMemoryBuffer(buf as MemoryBuffer);
    throw new TypeError(`buffer is not backed by a CudaBuffer: ${describeValue(buf)}`);
  }

  /**
   * A zero-copy view of a @cumem/memory Buffer that devices can access; the view keeps the
   * Buffer alive and is closed when the Buffer is.
   */
  static fromMemoryBuffer(buf: MemoryBuffer): CudaBuffer {
    if (!bufferBrand.has(buf)) {
      throw new TypeError(`expected a @cumem/memory Buffer, got ${describeValue(buf)}`);
    }
    if (bufferState(buf).isClosed) throw CudaStateError.closed('Buffer');
    if (!bufferState(buf).isDeviceAccessible) throw new TypeError('the Buffer is not device-accessible');
    const context = contextForDevice(Math.max(bufferState(buf).deviceId, 0));
    const address = bufferState(buf).pointer;
    const size = bufferState(buf).size;
    return createCudaBuffer({
      context,
      address,
      size,
      parent: null,
      memory: MemoryBuffer.fromHandle(address, size, { owner: buf }),
      base: buf,
      mutable: true,
    });
  }
}

/** @internal Makes a CudaBuffer. */
export function createCudaBuffer(init: CudaBufferInit): CudaBuffer {
  const CudaBufferClass = CudaBuffer as unknown as new (token: symbol, init: CudaBufferInit) => CudaBuffer;
  return new CudaBufferClass(constructing, init);
}

/** @internal A view of `parent` that may be empty at its end (the reader needs that; slice() refuses it). */
export function createView(parent: CudaBuffer, offset: number, length: number): CudaBuffer {
  return viewOf(parent, offset, length);
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(CudaBuffer, CudaBuffer.isCudaBuffer, ['toString', inspect.custom]);
