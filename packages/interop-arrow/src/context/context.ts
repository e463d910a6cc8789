// pyarrow.cuda's Context: one device's primary context, and the factories of CudaBuffers.

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  checkAddress,
  checkOptions,
  checkSize,
  Device,
  type Driver,
  describeValue,
  guardMembers,
  IpcMemFlags,
  NotSupportedError,
  objectDescription,
} from '@cumem/core-types';
import { bufferBrand, currentDriver, deviceCount, Buffer as MemoryBuffer } from '@cumem/memory';
import { allocationRanges, bufferState } from '@cumem/memory/internal';
import { arrayInterfaceSpan } from '../buffer/array-interface-span.js';
import { CudaBuffer, createCudaBuffer, cudaBufferBrand } from '../buffer/cuda-buffer.js';
import { IpcMemHandle } from '../buffer/ipc-mem-handle.js';
import { resolveDataRange } from '../buffer/position-rules.js';
import { hostBufferBrand } from '../host/host-buffer.js';
import { type HostData, tryHostBytes } from '../host/host-bytes.js';
import { type ContextState, enterContext, registerContext, setContextMaker } from './context-internals.js';
import { ContextMemoryResource, IpcMappingResource } from './context-memory-resource.js';

const { rangeOverrun } = allocationRanges;

/** Options of {@link Context.bufferFromData}. */
export interface BufferFromDataOptions {
  /** Byte offset in `data` where the copy starts. Default 0. */
  readonly offset?: number;
  /** Bytes to copy; -1 (default) = to the end of `data`. */
  readonly size?: number;
}

/** A device and its primary context: allocates, views and opens device memory as CudaBuffers. */
export class Context {
  readonly #state: ContextState;
  readonly #deviceMemory: ContextMemoryResource;
  readonly #ipcMappings: IpcMappingResource;

  /**
   * The primary context of device `deviceNumber` (default 0), made current on this thread.
   * @throws RangeError when there is no such device.
   */
  constructor(deviceNumber = 0) {
    checkSize(deviceNumber, 'deviceNumber');
    const count = deviceCount();
    if (deviceNumber >= count) {
      throw new RangeError(`deviceNumber must be non-negative and less than ${count}, got ${deviceNumber}`);
    }
    this.#state = { driver: currentDriver(), device: new Device(deviceNumber), bytesAllocated: 0 };
    registerContext(this, this.#state);
    this.#deviceMemory = new ContextMemoryResource(this.#state);
    this.#ipcMappings = new IpcMappingResource(this.#state);
    enterContext(this.#state);
    // No own property can shadow a method (a subclass of the program's is its author's).
    if (new.target === Context) Object.freeze(this);
  }

  /**
   * Whether `value` is a Context made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isContext(value: unknown): value is Context {
    return typeof value === 'object' && value !== null && #state in value;
  }

  /** Number of CUDA devices. */
  static numDevices(): number {
    return deviceCount();
  }

  /** Ordinal of this context's device. */
  get deviceNumber(): number {
    return this.#state.device.ordinal;
  }

  /** The device, as a @cumem/core-types Device. */
  get device(): Device {
    return this.#state.device;
  }

  /** The driver context handle (`CUcontext`) of the device's primary context. */
  get handle(): bigint {
    enterContext(this.#state);
    return this.#state.driver.contextGetCurrent();
  }

  /** Bytes currently allocated through this Context (deviceBuffer / bufferFromData), not yet freed. */
  get bytesAllocated(): number {
    return this.#state.bytesAllocated;
  }

  /** Blocks until the device has finished all work (`cuCtxSynchronize`). */
  synchronize(): void {
    enterContext(this.#state);
    this.#state.driver.contextSynchronize();
  }

  /** Allocates `size` bytes of device memory with `cuMemAlloc` (IPC-exportable). */
  deviceBuffer(size: number): CudaBuffer {
    checkSize(size, 'size');
    if (size === 0) return this.#view(0n, 0, null, true);
    return this.#owning(this.#deviceMemory.allocate(size));
  }

  /** Alias of {@link deviceBuffer} (pyarrow's `new_buffer`). */
  newBuffer(size: number): CudaBuffer {
    return this.deviceBuffer(size);
  }

  /**
   * A new device buffer holding a copy of `data` (host memory or a CudaBuffer), from `offset`
   * for `size` bytes (default: to the end). Always copies.
   */
  bufferFromData(data: HostData | CudaBuffer, options?: BufferFromDataOptions): CudaBuffer {
    const { offset = 0, size = -1 } = checkOptions(options);
    if (cudaBufferBrand.has(data)) {
      const range = resolveDataRange(data.size, offset, size);
      const result = this.deviceBuffer(range.size);
      result.copyFromDevice(data.slice(range.offset, range.size));
      return result;
    }
    const bytes = tryHostBytes(data);
    if (!bytes) {
      throw new TypeError(`data must be host memory or a CudaBuffer, got ${describeValue(data)}`);
    }
    const range = resolveDataRange(bytes.byteLength, offset, size);
    const result = this.deviceBuffer(range.size);
    result.copyFromHost(bytes.subarray(range.offset, range.offset + range.size));
    return result;
  }

  /**
   * A zero-copy CudaBuffer view of `obj`: a CudaBuffer (itself), a HostBuffer, a
   * device-accessible @cumem/memory Buffer, or any object with a `cudaArrayInterface`. The view
   * keeps `obj` alive, and follows the close of a CudaBuffer, HostBuffer or Buffer.
   *
   * **Unsafe** for a `cudaArrayInterface` object: its `data` pointer is a raw address. cumem
   * checks the span only against the allocation the driver knows there, and cannot check who
   * owns that memory or how long it stays allocated. The caller must guarantee that the object
   * keeps the memory it describes allocated while it is reachable (the view keeps the object
   * alive) and writable unless the interface says read-only. Otherwise the view reads and
   * writes memory it does not own. (The other kinds of `obj` are cumem's own and checked.)
   * @throws TypeError for anything else.
   */
  bufferFromObject(obj: unknown): CudaBuffer {
    if (cudaBufferBrand.has(obj)) return obj;
    if (hostBufferBrand.has(obj)) return this.foreignBuffer(obj.address, obj.size, obj);
    if (bufferBrand.has(obj)) return CudaBuffer.fromMemoryBuffer(obj as MemoryBuffer);
    if (typeof obj === 'object' && obj !== null && 'cudaArrayInterface' in obj) {
      const span = arrayInterfaceSpan((obj as { cudaArrayInterface: unknown }).cudaArrayInterface);
      if (span.size === 0) return this.#view(0n, 0, obj, !span.readonly);
      return this.#view(span.address, span.size, obj, !span.readonly);
    }
    throw new TypeError(`cannot create device buffer view from ${describeValue(obj)}`);
  }

  /**
   * A view of `size` bytes of device-accessible memory at `address` that this package does not
   * own. `base`, if given, is kept alive as long as the view (and any view of it); a `base` that
   * is a CudaBuffer, HostBuffer or @cumem/memory Buffer (or has a boolean `isClosed`) closes the
   * view when it closes.
   *
   * **Unsafe:** `address` is a raw pointer. cumem checks `size` only against the allocation the
   * driver knows at `address` (not pageable host memory), and cannot check who owns the memory
   * or how long it stays allocated. The caller must guarantee that the `size` bytes stay
   * allocated (by `base`, or otherwise) while the view and its slices are used. Otherwise the
   * view reads and writes memory it does not own.
   * @throws TypeError / RangeError for a bad address or size; RangeError when `size` bytes run
   *   past the driver-known allocation at `address`.
   */
  foreignBuffer(address: bigint | number, size: number, base?: unknown): CudaBuffer {
    const pointer = checkAddress(address, 'address');
    checkSize(size, 'size');
    return this.#view(pointer, size, base ?? null, true);
  }

  /**
   * Opens memory another process exported with `exportForIpc` (`cuIpcOpenMemHandle`). The size
   * in the handle comes from the other process and is checked against the range the driver
   * mapped, so a handle cannot claim more memory than was exported.
   * @throws RangeError when the handle's size is larger than the exported allocation (the
   *   mapping is closed again).
   */
  openIpcBuffer(handle: IpcMemHandle): CudaBuffer {
    if (!IpcMemHandle.isIpcMemHandle(handle)) {
      throw new TypeError(`handle must be an IpcMemHandle, got ${describeValue(handle)}`);
    }
    if (handle.size === 0) return this.#view(0n, 0, null, true);
    const driver = this.#state.driver;
    if (!driver.capabilities.interprocess) {
      throw new NotSupportedError(
        `the ${driver.name} driver has no CUDA IPC (capabilities.interprocess is false)`,
      );
    }
    enterContext(this.#state);
    const address = driver.ipcOpenMemHandle(handle.handle, IpcMemFlags.LazyEnablePeerAccess);
    checkMappedSize(driver, address, handle.size);
    return this.#owning(this.#ipcMappings.open(address, handle.size));
  }

  static readonly #description = objectDescription('Context', Context.isContext, (context) => ({
    device: context.#state.device.ordinal,
    bytesAllocated: context.#state.bytesAllocated,
  }));

  /** `Context(device: 0, bytesAllocated: 4096)`: the device, and the bytes allocated through this Context not yet freed. */
  toString(): string {
    return Context.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link Context.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Context.#description.inspect(this, depth, options, nodeInspect);
  }

  /** A CudaBuffer that owns `memory`: closing it (or dropping it and its views) frees the memory. */
  #owning(memory: MemoryBuffer): CudaBuffer {
    return createCudaBuffer({
      context: this,
      address: bufferState(memory).pointer,
      size: bufferState(memory).size,
      parent: null,
      memory,
      base: null,
      mutable: true,
    });
  }

  /** A CudaBuffer over memory this package does not own; closed once `base` is (when it can be). */
  #view(address: bigint, size: number, base: unknown, mutable: boolean): CudaBuffer {
    return createCudaBuffer({
      context: this,
      address,
      size,
      parent: null,
      memory: MemoryBuffer.fromHandle(address, size, base === null ? undefined : { owner: base }),
      base,
      mutable,
    });
  }
}

setContextMaker((deviceNumber) => new Context(deviceNumber));
// Answer for any receiver: describing an imitation must not throw.
guardMembers(Context, Context.isContext, ['toString', inspect.custom]);

/**
 * Closes the mapping at `address` and throws when `size` bytes from it run past the range
 * `cuIpcOpenMemHandle` mapped: the size is the sending process's claim, and a larger one would
 * let views read and write memory the mapping does not cover. @cumem/memory's `rangeOverrun` is
 * the rule (and the message) every size claimed from outside goes through.
 */
function checkMappedSize(driver: Driver, address: bigint, size: number): void {
  let overrun: RangeError | undefined;
  try {
    overrun = rangeOverrun(driver, address, size, 'the IpcMemHandle');
  } catch (error) {
    driver.ipcCloseMemHandle(address);
    throw error;
  }
  if (overrun !== undefined) {
    driver.ipcCloseMemHandle(address);
    throw overrun;
  }
}
