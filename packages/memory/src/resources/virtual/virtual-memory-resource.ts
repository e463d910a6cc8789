import {
  CudaStateError,
  type Device,
  describeValue,
  type MemAccessDescriptor,
  MemAccessFlags,
} from '@cumem/core-types';
import type { Buffer } from '../../buffer/buffer.js';
import { bufferBrand, bufferState } from '../../buffer/buffer-base.js';
import { allocatedBuffer } from '../../buffer/buffer-construction.js';
import { orderForDroppedBuffer } from '../../buffer/dropped-buffer-order.js';
import { LiveAllocations } from '../../buffer/live-allocations.js';
import {
  freezeBuiltIn,
  guardResourceMembers,
  MemoryResource,
  type ResourceBooks,
  setResourceBooks,
} from '../../buffer/memory-resource.js';
import { allocateWithRecovery } from '../../diagnostics/out-of-memory.js';
import type { IpcAllocationHandle } from '../../interop/ipc/ipc-allocation-handle.js';
import { checkDeviceKind, deviceOrdinal } from '../../runtime/device-arguments.js';
import { activeRuntime, type DriverRuntime } from '../../runtime/driver-runtime.js';
import { runtimeDefaultStream, type Stream } from '../../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../../stream/stream-options.js';
import { deallocateArguments, waitBeforeFree } from '../host-allocation-order.js';
import {
  checkPeerDevices,
  PeerAccessView,
  setPeerAccess,
  setPeerAccessMapping,
} from '../peer-access-view.js';
import {
  mapChunk,
  reserve,
  setAccess,
  Transaction,
  unmapAndFree,
  VirtualAllocation,
  type VirtualChunk,
} from './virtual-allocation.js';
import { virtualBufferKind } from './virtual-buffer.js';
import {
  exportAllocation,
  importAllocation,
  type VirtualBufferExport,
  type VirtualIpcDescriptor,
  type VirtualIpcHost,
} from './virtual-ipc.js';
import {
  checkVirtualMemoryOptions,
  checkVirtualSize,
  type ModifyAllocationResult,
  type VirtualMemoryResourceOptions,
  type VirtualMemorySettings,
} from './virtual-memory-options.js';
import { accessList, changeVirtualPeerAccess } from './virtual-peer-access.js';
import { addVirtualRange, deleteVirtualRange } from './virtual-ranges.js';
import { type ResizeHost, resizeAllocation } from './virtual-resize.js';

export type { ModifyAllocationResult } from './virtual-memory-options.js';

// How close() frees a buffer of VirtualMemoryResource and Buffer.fromHandle hands it memory (memory-resource.ts).
let virtualBooks: ResourceBooks<VirtualMemoryResource>;

// Buffer.fromHandle(..., { mr }) cannot hand a VMM resource memory it did not map.
function refuseAdoption(): never {
  throw new TypeError(
    'Buffer.fromHandle cannot hand memory to a VirtualMemoryResource: it frees only what it mapped itself (use { owner })',
  );
}

/**
 * Device memory through CUDA's virtual memory management, as cuda.core's
 * `VirtualMemoryResource`: each allocation reserves an address range, maps physical chunks into
 * it and sets which devices may access it. Sizes round up to the granularity (`buffer.size` is
 * what was asked; the memory held is `roundUp(size, granularity)`). Buffers can grow and shrink
 * in place with {@link modifyAllocation}, keeping their address up to `reserveSize`.
 *
 * Frees are not stream-ordered: closing a buffer waits for its stream (or `close({ stream })`'s)
 * before unmapping, as the classic allocators do; work on other streams must be done by then.
 */
export class VirtualMemoryResource extends MemoryResource {
  static {
    virtualBooks = {
      release: (resource, handle, size, stream) => resource.#releaseBuffer(handle, size, stream),
      adopt: refuseAdoption,
    };
  }

  /** @internal */ readonly runtime: DriverRuntime;
  readonly #ordinal: number;
  readonly #settings: VirtualMemorySettings;
  readonly #live = new LiveAllocations(this);
  readonly #records = new Map<bigint, VirtualAllocation>();
  // Addresses of buffers that moved: their close() frees nothing (the chunks went along).
  readonly #retired = new Set<bigint>();
  readonly #peers: Set<number>;
  readonly #deviceMemory: number;
  // What virtual-resize.ts needs of this resource.
  readonly #resizing: ResizeHost = {
    resource: this,
    driver: () => this.runtime.driver,
    settings: () => this.#settings,
    live: this.#live,
    records: this.#records,
    retired: this.#retired,
    access: () => this.#access(),
    createChunk: (t, size, offset) => this.#createChunk(t, size, offset),
    waitForWork: (buffer) => this.#waitForWork(buffer),
    newBuffer: (base, size, stream) =>
      allocatedBuffer(virtualBufferKind, this.runtime, base, size, this, stream),
  };
  // What virtual-ipc.ts needs of this resource.
  readonly #sharing: VirtualIpcHost;

  /**
   * @param device a Device or ordinal.
   * @throws TypeError / RangeError for bad arguments; NotSupportedError for an option the
   *   platform, driver or device cannot do (see {@link VirtualMemoryResourceOptions}), or a peer
   *   that cannot access the device. Nothing is allocated until `allocate`.
   */
  constructor(device: Device | number, options?: VirtualMemoryResourceOptions) {
    super();
    checkDeviceKind(device);
    if (device === undefined)
      throw new TypeError('VirtualMemoryResource needs a device (a Device or an ordinal)');
    this.runtime = activeRuntime();
    this.#ordinal = deviceOrdinal(this.runtime, device);
    this.#settings = checkVirtualMemoryOptions(this.runtime, this.#ordinal, options);
    this.#peers = new Set(this.#settings.peers);
    this.#deviceMemory = this.runtime.driver.deviceTotalMem(this.#ordinal);
    const { driver, settings, access } = this.#resizing;
    const ordinal = this.#ordinal;
    const deviceMemory = this.#deviceMemory;
    this.#sharing = { driver, settings, access, ordinal, deviceMemory, accessOf: this.#accessOf };
    setResourceBooks(this, virtualBooks);
    setPeerAccessMapping(this, {
      accessOf: (ordinal) => this.#peerAccessOf(ordinal),
      change: (changes) =>
        changeVirtualPeerAccess(
          this.runtime.driver,
          this.#records.values(),
          this.#settings,
          this.#peers,
          changes,
        ),
    });
    freezeBuiltIn(this, new.target, VirtualMemoryResource);
  }

  /** Bytes every size rounds up to (the granularity the options chose). */
  get granularity(): number {
    return this.#settings.granularity;
  }

  /** Bytes of address space each allocation reserves at least (`reserveSize`, rounded up). */
  get reserveSize(): number {
    return this.#settings.reserveSize;
  }

  /** The device's ordinal. */
  get deviceId(): number {
    return this.#ordinal;
  }

  /** Always true. */
  get isDeviceAccessible(): boolean {
    return true;
  }

  /** Always false: copy to the host. */
  get isHostAccessible(): boolean {
    return false;
  }

  /**
   * `size` bytes (memory held: `size` rounded up to {@link granularity}), mapped read-write (or
   * as `selfAccess` says) for the device and `peerAccess` for every peer. Transactional: when a
   * step fails (reserve, create, map, access), the steps before it are undone.
   * `options.stream` orders the buffer's later free.
   * @throws CudaStateError when closed; TypeError / RangeError for a size that is not a positive
   *   safe integer or is more than the device has; CudaError from the driver (out of memory
   *   after recovery and the `onOutOfMemory` hooks, or over {@link limit}).
   */
  allocate(size: number, options?: StreamOrderOptions): Buffer {
    // The options first: reading them runs the caller's getters, which may close this resource.
    const given = streamOption(options);
    if (this.isClosed) throw CudaStateError.closed('VirtualMemoryResource');
    const aligned = this.#checkNewSize(size, 'size');
    const runtime = this.runtime;
    const stream = given ?? runtimeDefaultStream(runtime, this.#ordinal);
    runtime.makeCurrent(this.#ordinal);
    const { alignment, addressHint, reserveSize } = this.#settings;
    const driver = runtime.driver;
    const record = Transaction.run((t) => {
      const piece = reserve(driver, t, Math.max(aligned, reserveSize), alignment, addressHint);
      const chunk = this.#createChunk(t, aligned, 0);
      mapChunk(driver, t, piece.start, chunk);
      setAccess(driver, piece.start, aligned, this.#access());
      const allocation = new VirtualAllocation(this.#accessOf, piece.start, [piece], size);
      allocation.chunks.push(chunk);
      allocation.mapped = aligned;
      return allocation;
    });
    this.#records.set(record.base, record);
    this.#live.add(record.base, record.mapped);
    addVirtualRange(runtime, record);
    return allocatedBuffer(virtualBufferKind, runtime, record.base, size, this, stream);
  }

  /**
   * Grows or shrinks `buffer` (from this resource's `allocate`, not a slice) to `newSize` bytes.
   * Growing maps new physical memory after the old, in place while the reserved range
   * (`reserveSize`, or the address right after it when the driver can reserve that) has room:
   * `buffer.handle` stays, and slices stay valid. Otherwise the chunks are mapped at a new range
   * (the bytes are not copied) and `moved` is true: use the returned buffer; the old one and its
   * slices are closed. Shrinking unmaps and releases the chunks wholly past the new size (a chunk
   * the new end cuts stays mapped); it is refused while an open slice reaches past `newSize`.
   * Unmapping waits for the work queued on every stream cumem knows. Transactional as `allocate`.
   * @throws TypeError for a buffer of another resource, a slice, or a bad size; RangeError for a
   *   size that is 0 or more than the device has; CudaStateError when the resource or buffer is
   *   closed, or a live slice reaches past `newSize`; CudaError from the driver.
   */
  modifyAllocation(buffer: Buffer, newSize: number): ModifyAllocationResult {
    if (!bufferBrand.has(buffer))
      throw new TypeError(`buffer must be a Buffer, got ${describeValue(buffer)}`);
    const aligned = this.#checkNewSize(newSize, 'newSize');
    const record = this.#recordOf(buffer, 'modifyAllocation');
    if (record.imported)
      throw new TypeError('modifyAllocation cannot resize a buffer another process exported');
    this.runtime.makeCurrent(this.#ordinal);
    return resizeAllocation(this.#resizing, buffer, record, newSize, aligned);
  }

  /**
   * Shares `buffer` (an allocation of this resource, not a slice) with another process: one file
   * descriptor per physical chunk (`cuMemExportToShareableHandle`) and the sizes; the other
   * process opens it with {@link importBuffer}. Needs `handleType: 'posixFd'`.
   * @throws NotSupportedError without it; TypeError / CudaStateError as {@link modifyAllocation};
   *   CudaError from the driver (then no descriptor is left open).
   */
  exportBuffer(buffer: Buffer): VirtualBufferExport {
    const record = this.#recordOf(buffer, 'exportBuffer');
    this.runtime.makeCurrent(this.#ordinal);
    return exportAllocation(this.#sharing, record);
  }

  /**
   * Opens a buffer another process exported ({@link exportBuffer}) at a new address, with this
   * resource's access; each chunk is checked with the driver (pinned memory of this device,
   * POSIX-fd exportable). The handles stay the caller's. Not resizable; `close()` releases this
   * process's imports (README "Sharing VMM buffers").
   * @throws NotSupportedError without `handleType: 'posixFd'`; TypeError / RangeError for a bad
   *   descriptor or handles, or a chunk that is not such memory; CudaStateError when closed;
   *   CudaError from the driver (a descriptor that is no VMM chunk, or a chunk smaller than claimed).
   */
  importBuffer(descriptor: VirtualIpcDescriptor, handles: readonly IpcAllocationHandle[]): Buffer {
    this.checkPeerAccessOpen(); // closed check + makeCurrent
    const record = importAllocation(this.#sharing, descriptor, handles);
    this.#records.set(record.base, record);
    this.#live.add(record.base, record.mapped);
    addVirtualRange(this.runtime, record);
    return allocatedBuffer(virtualBufferKind, this.runtime, record.base, record.size, this, undefined);
  }

  /**
   * The other devices that may use this resource's memory: a live, Set-like view like
   * `DeviceMemoryResource.peerAccessibleBy`. A change applies to every open allocation (one
   * `cuMemSetAccess` per allocation, undone on all when one fails) and to later ones.
   */
  get peerAccessibleBy(): PeerAccessView {
    this.checkPeerAccessOpen();
    return PeerAccessView.of(this);
  }

  /** Gives exactly these devices (the owner is ignored) `peerAccess`; checked first, as the view's `add`. */
  set peerAccessibleBy(devices: Iterable<Device | number>) {
    this.checkPeerAccessOpen();
    setPeerAccess(this, checkPeerDevices(this, devices));
  }

  /** @internal No pool: the peer-access mapping set in the constructor stands for it. */
  get pool(): bigint {
    return 0n;
  }

  /** @internal */
  checkPeerAccessOpen(): void {
    if (this.isClosed) throw CudaStateError.closed('VirtualMemoryResource');
    this.runtime.makeCurrent(this.#ordinal);
  }

  // The access of device `ordinal`, not the owner.
  #peerAccessOf(ordinal: number): number {
    return this.#peers.has(ordinal) ? this.#settings.peerFlags : MemAccessFlags.None;
  }

  /** @internal A buffer from {@link importBuffer} is mapped from another process; one this resource allocated is not. */
  override mapsAllocationAt(pointer: bigint): boolean {
    return this.#records.get(pointer)?.imported === true;
  }

  /** @internal */
  noteSlice(slice: Buffer): void {
    const record = this.#records.get(bufferState(bufferState(slice).memoryOwner).pointer);
    record?.slices.push(new WeakRef(slice));
  }

  /**
   * Refuses every pointer: a VirtualMemoryResource's memory is freed by closing its Buffer.
   * @throws CudaStateError when an open Buffer owns `pointer`; RangeError otherwise.
   */
  deallocate(pointer: bigint | number, size: number, options?: StreamOrderOptions): void {
    const { handle } = deallocateArguments(this.runtime, pointer, size, options);
    this.#live.checkNotOwned(handle, 'VirtualMemoryResource');
    throw new RangeError(`0x${handle.toString(16)} is not an allocation of this VirtualMemoryResource`);
  }

  // Unmaps, releases and frees what the buffer at `handle` held, after `stream` (through the books).
  #releaseBuffer(handle: bigint, _size: number, stream: Stream | undefined): void {
    if (this.#retired.delete(handle)) return;
    const record = this.#records.get(handle);
    if (record === undefined) return;
    this.#records.delete(handle);
    deleteVirtualRange(this.runtime, record);
    waitBeforeFree(this.runtime, this.#ordinal, stream);
    this.runtime.makeCurrent(this.#ordinal);
    const driver = this.runtime.driver;
    // C's order (unmap, release, free the range): the physical memory goes back before the
    // address space, and a failed unmap still releases the chunks (their range stays reserved).
    try {
      unmapAndFree(driver, record.base, record.chunks, []);
    } finally {
      for (const chunk of record.chunks) driver.memRelease(chunk.handle);
      this.#live.delete(handle, record.mapped);
    }
    for (const piece of record.pieces) driver.memAddressFree(piece.start, piece.size);
  }

  // What device `ordinal` may do with this resource's memory.
  readonly #accessOf = (ordinal: number): number =>
    ordinal === this.#ordinal ? this.#settings.selfFlags : this.#peerAccessOf(ordinal);

  // The record of `buffer`, an open buffer this resource allocated (not a slice).
  #recordOf(buffer: Buffer, action: string): VirtualAllocation {
    if (!bufferBrand.has(buffer))
      throw new TypeError(`buffer must be a Buffer, got ${describeValue(buffer)}`);
    if (this.isClosed) throw CudaStateError.closed('VirtualMemoryResource');
    bufferState(buffer).checkOpen();
    const record =
      bufferState(buffer).resource === this && bufferState(buffer).parent === null
        ? this.#records.get(bufferState(buffer).pointer)
        : undefined;
    if (record === undefined)
      throw new TypeError(
        `${action} takes a Buffer of this VirtualMemoryResource (not a slice, nor memory of another resource)`,
      );
    return record;
  }

  #checkNewSize(size: number, name: string): number {
    return checkVirtualSize(size, name, this.#settings.granularity, this.#ordinal, this.#deviceMemory);
  }

  #access(): MemAccessDescriptor[] {
    return accessList(this.#ordinal, this.#settings, this.#peers);
  }

  /** A chunk of `size` bytes for offset `offset`: the limit, recovery and hooks as every resource's allocation. */
  #createChunk(t: Transaction, size: number, offset: number): VirtualChunk {
    const driver = this.runtime.driver;
    const properties = this.#settings.properties;
    const handle = allocateWithRecovery(this, this.#live, size, 'cuMemCreate', () =>
      driver.memCreate(size, properties),
    );
    t.undo(() => driver.memRelease(handle));
    return { handle, size, offset };
  }

  /** Waits for the work queued so far on every stream cumem knows (before unmapping). */
  #waitForWork(buffer: Buffer): void {
    const stream = orderForDroppedBuffer(this.runtime, this, bufferState(buffer).allocationStream);
    waitBeforeFree(this.runtime, this.#ordinal, stream);
    this.runtime.makeCurrent(this.#ordinal);
  }
}

guardResourceMembers(VirtualMemoryResource);
