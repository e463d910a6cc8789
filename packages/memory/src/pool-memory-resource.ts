import { randomUUID } from 'node:crypto';
import {
  CudaStateError,
  checkAddress,
  checkSize,
  type DriverHandle,
  describeValue,
  MemPoolAttribute,
  NotSupportedError,
  PointerAttribute,
} from '@cumem/core-types';
import { allocatedBuffer, Buffer, MemoryResource } from './buffer.js';
import type { DriverRuntime } from './driver-runtime.js';
import { exportedHandle, IpcAllocationHandle } from './ipc-allocation-handle.js';
import { type IpcBufferDescriptor, makeIpcDescriptor } from './ipc-descriptor.js';
import { forgetFinalizer, registerFinalizer } from './object-finalizer.js';
import { runtimeDefaultStream, type Stream } from './stream.js';
import { type StreamOrderOptions, streamOption } from './stream-options.js';

/**
 * Release threshold cumem gives pools by default: "keep everything". With the driver's default
 * of 0 a pool returns its memory to the system at every synchronization and the next allocation
 * maps it again, which costs far more than the allocation itself (cuda.core raises the
 * threshold of the device's current pool the same way). The largest exact number stands for
 * "no limit".
 */
export const keepAllReleaseThreshold = Number.MAX_SAFE_INTEGER;

/** Live statistics of a pool, in bytes (`cuMemPoolGetAttribute`). */
export interface PoolAttributes {
  /** Memory the pool holds from the system now. */
  readonly reservedMemCurrent: number;
  /** High-water mark of {@link reservedMemCurrent}. */
  readonly reservedMemHigh: number;
  /** Memory handed out to allocations now. */
  readonly usedMemCurrent: number;
  /** High-water mark of {@link usedMemCurrent}. */
  readonly usedMemHigh: number;
  /** Reserved memory the pool keeps at a synchronization instead of releasing it; settable. */
  releaseThreshold: number;
}

/** @internal What a pool resource is made of, decided before it is constructed. */
export interface PoolSetup {
  readonly runtime: DriverRuntime;
  readonly pool: DriverHandle;
  readonly owned: boolean;
  readonly ipcEnabled: boolean;
  readonly mapped: boolean;
  /** Device whose context and default stream the pool's work uses. */
  readonly ordinal: number;
  readonly uuid: string | null;
}

/** The stream-ordered pool resources (device and pinned): allocation through `cuMemAllocFromPoolAsync`. */
export abstract class PoolMemoryResource extends MemoryResource {
  /** @internal */ readonly runtime: DriverRuntime;
  /** @internal */ readonly pool: DriverHandle;
  private readonly owned: boolean;
  private readonly ipcEnabled: boolean;
  private readonly mapped: boolean;
  /** @internal */ readonly ordinal: number;
  private stream: Stream | undefined = undefined;
  private allocationHandle: IpcAllocationHandle | undefined = undefined;
  private attributeView: PoolAttributes | undefined = undefined;
  // Buffers handed out and not yet freed. cuMemPoolDestroy on a pool that still has allocations
  // is documented to wait for them, but on a CUDA 13.0 driver (580, H200) closing a pinned pool
  // before its buffers, then freeing them with cuMemFreeAsync, made a later cuStreamSynchronize
  // of that stream crash the process or never return (the buffer and memory-resource tests).
  // So close() destroys an owned pool only once the last of its buffers has been freed.
  private outstanding = 0;
  private destroyPending = false;

  /** @internal */
  constructor(setup: PoolSetup) {
    super();
    this.runtime = setup.runtime;
    this.pool = setup.pool;
    this.owned = setup.owned;
    this.ipcEnabled = setup.ipcEnabled;
    this.mapped = setup.mapped;
    this.ordinal = setup.ordinal;
    this.resourceUuid = setup.uuid;
    if (setup.owned) {
      const { runtime, pool } = setup;
      registerFinalizer(this, () => runtime.driver.memPoolDestroy(pool));
    }
  }

  /** The `CUmemoryPool` handle. */
  get handle(): bigint {
    return this.pool;
  }

  /** True when this resource made (or imported) the pool and destroys it on `close()`. */
  get isHandleOwned(): boolean {
    return this.owned;
  }

  /** True when the pool's allocations can be shared with other processes. */
  get isIpcEnabled(): boolean {
    return this.ipcEnabled;
  }

  override get isMapped(): boolean {
    return this.mapped;
  }

  /** Live pool statistics; `releaseThreshold` can be set. */
  get attributes(): PoolAttributes {
    this.checkOpen();
    if (this.attributeView === undefined) this.attributeView = poolAttributes(this);
    return this.attributeView;
  }

  /**
   * Allocates `size` bytes from the pool, ordered on `options.stream` (default: the device's
   * default stream). Never waits. Hot path: no allocation besides the Buffer.
   * @throws RangeError / TypeError for a bad size; CudaStateError when closed; TypeError for an imported pool.
   */
  allocate(size: number, options?: StreamOrderOptions): Buffer {
    if (this.closed) throw CudaStateError.closed(this.constructor.name);
    if (this.mapped) throw mappedAllocation(this);
    checkSize(size, 'size');
    let stream = options === undefined ? undefined : streamOption(options);
    if (stream === undefined) stream = this.stream ?? this.ownDefaultStream();
    else if (stream.runtime !== this.runtime) throw foreignStream(this, stream);
    const runtime = this.runtime;
    runtime.makeCurrent(stream.ordinal);
    if (size === 0) return allocatedBuffer(Buffer, runtime, 0n, 0, this, stream);
    const handle = runtime.driver.memAllocFromPoolAsync(size, this.pool, stream.streamHandle);
    this.outstanding++;
    return allocatedBuffer(Buffer, runtime, handle, size, this, stream);
  }

  /**
   * Returns `size` bytes at `pointer` to the pool, ordered on `options.stream` (default: the
   * device's default stream). Never waits. Works after `close()`.
   */
  deallocate(pointer: bigint | number, size: number, options?: StreamOrderOptions): void {
    const handle = checkAddress(pointer, 'pointer');
    checkSize(size, 'size');
    const stream = streamOption(options);
    if (stream !== undefined && stream.runtime !== this.runtime) throw foreignStream(this, stream);
    this.releaseBuffer(handle, size, stream);
  }

  /** @internal Hot path of `buffer.close()`. */
  override releaseBuffer(handle: bigint, size: number, stream: Stream | undefined): void {
    if (size === 0) return;
    // A stream closed since the allocation can no longer order the free: use the default one.
    const target =
      stream === undefined || stream.isClosed ? (this.stream ?? this.ownDefaultStream()) : stream;
    this.runtime.makeCurrent(target.ordinal);
    this.runtime.driver.memFreeAsync(handle, target.streamHandle);
    // A pointer this resource never counted (deallocate of foreign memory) does not go below 0.
    if (this.outstanding > 0) this.outstanding--;
    if (this.destroyPending && this.outstanding === 0) this.destroyPool();
  }

  /** @internal Counts external memory that `Buffer.fromHandle(pointer, size, { mr })` hands to this pool. */
  override adoptBuffer(): void {
    this.outstanding++;
  }

  /**
   * The handle another process imports this pool with (`fromAllocationHandle`). Cached and
   * owned by this resource (closed with it); a closed one is replaced by a fresh export.
   * @throws TypeError when the pool is not IPC-enabled or is itself an import.
   */
  getAllocationHandle(): IpcAllocationHandle {
    this.checkOpen();
    if (!this.ipcEnabled)
      throw new TypeError(`${this.constructor.name} was not created with { ipcEnabled: true }`);
    if (this.mapped) throw new TypeError('an imported memory resource cannot be exported again');
    if (this.allocationHandle === undefined || this.allocationHandle.isClosed) {
      this.runtime.makeCurrent(this.ordinal);
      const fd = this.runtime.driver.memPoolExportToFileDescriptor(this.pool);
      this.allocationHandle = exportedHandle(fd, this.resourceUuid);
    }
    return this.allocationHandle;
  }

  /**
   * Closes the resource: destroys an owned pool, at once or, while buffers from it are still open,
   * when the last of them is freed. Idempotent.
   */
  override close(): void {
    if (this.closed) return;
    super.close();
    this.allocationHandle?.close();
    this.allocationHandle = undefined;
    if (this.owned) {
      forgetFinalizer(this);
      // With buffers outstanding, the last one's free destroys the pool (see `outstanding`).
      if (this.outstanding > 0) this.destroyPending = true;
      else this.destroyPool();
    }
  }

  private destroyPool(): void {
    this.destroyPending = false;
    this.runtime.makeCurrent(this.ordinal);
    this.runtime.driver.memPoolDestroy(this.pool);
  }

  /** @internal */
  override exportIpcBuffer(handle: bigint, size: number): IpcBufferDescriptor {
    if (!this.ipcEnabled) return super.exportIpcBuffer(handle, size);
    // cuMemPoolExportPointer answers CUDA_ERROR_INVALID_VALUE until the pool itself has been
    // shared (seen on CUDA 13.0), so a buffer's descriptor first exports the pool's handle.
    if (!this.mapped) this.getAllocationHandle();
    this.runtime.makeCurrent(this.ordinal);
    return makeIpcDescriptor(this.runtime.driver.memPoolExportPointer(handle), size, this.resourceUuid);
  }

  /** @internal */
  override importIpcBuffer(bytes: Uint8Array, size: number, stream: Stream | undefined): Buffer {
    if (!this.mapped) return super.importIpcBuffer(bytes, size, stream);
    if (stream !== undefined && stream.runtime !== this.runtime) throw foreignStream(this, stream);
    const target = stream ?? this.stream ?? this.ownDefaultStream();
    this.runtime.makeCurrent(target.ordinal);
    const handle = this.runtime.driver.memPoolImportPointer(this.pool, bytes);
    checkImportedSize(this.runtime, handle, size, target);
    if (size !== 0) this.outstanding++;
    return allocatedBuffer(Buffer, this.runtime, handle, size, this, target);
  }

  /** @internal */
  protected checkOpen(): void {
    if (this.closed) throw CudaStateError.closed(this.constructor.name);
  }

  private ownDefaultStream(): Stream {
    this.stream = runtimeDefaultStream(this.runtime, this.ordinal);
    return this.stream;
  }
}

// The descriptor's size comes from elsewhere: a Buffer larger than the allocation the driver
// imported would let copies run past it. The import is given back before the error.
function checkImportedSize(runtime: DriverRuntime, handle: bigint, size: number, target: Stream): void {
  const driver = runtime.driver;
  let allocated: number;
  try {
    allocated = driver.pointerGetAttribute(handle, PointerAttribute.RangeSize);
  } catch (error) {
    driver.memFreeAsync(handle, target.streamHandle);
    throw error;
  }
  if (size > allocated) {
    driver.memFreeAsync(handle, target.streamHandle);
    throw new RangeError(
      `descriptor.size is ${size} bytes, the imported allocation has ${allocated}: the descriptor does not describe it`,
    );
  }
}

function mappedAllocation(resource: MemoryResource): TypeError {
  return new TypeError(
    `this ${resource.constructor.name} is imported from another process (isMapped): it cannot allocate`,
  );
}

function foreignStream(resource: PoolMemoryResource, stream: Stream): CudaStateError {
  return new CudaStateError(
    `the stream belongs to driver ${stream.runtime.driver.name}, this ${resource.constructor.name} to ${resource.runtime.driver.name}`,
  );
}

function poolAttributes(resource: PoolMemoryResource): PoolAttributes {
  const read = (attribute: number) => {
    if (resource.isClosed) throw CudaStateError.closed(resource.constructor.name);
    return resource.runtime.driver.memPoolGetAttribute(resource.pool, attribute);
  };
  return Object.freeze({
    get reservedMemCurrent() {
      return read(MemPoolAttribute.ReservedMemCurrent);
    },
    get reservedMemHigh() {
      return read(MemPoolAttribute.ReservedMemHigh);
    },
    get usedMemCurrent() {
      return read(MemPoolAttribute.UsedMemCurrent);
    },
    get usedMemHigh() {
      return read(MemPoolAttribute.UsedMemHigh);
    },
    get releaseThreshold() {
      return read(MemPoolAttribute.ReleaseThreshold);
    },
    set releaseThreshold(bytes: number) {
      checkSize(bytes, 'releaseThreshold');
      if (resource.isClosed) throw CudaStateError.closed(resource.constructor.name);
      resource.runtime.driver.memPoolSetAttribute(resource.pool, MemPoolAttribute.ReleaseThreshold, bytes);
    },
  });
}

/** @internal A new uuid for an IPC-enabled pool, null otherwise. */
export function poolUuid(ipcEnabled: boolean): string | null {
  return ipcEnabled ? randomUUID() : null;
}

/** @internal Refuses IPC on drivers without it, before the driver is touched. */
export function checkInterprocess(runtime: DriverRuntime, what: string): void {
  if (!runtime.capabilities.interprocess) {
    throw new NotSupportedError(
      `${what} needs interprocess pool sharing (POSIX file descriptors, Linux), which driver ${runtime.driver.name} ` +
        'does not offer (capabilities.interprocess = false)',
    );
  }
}

/**
 * @internal The descriptor and uuid of an allocation handle argument (an IpcAllocationHandle,
 * or a raw file descriptor number that stays the caller's).
 */
export function allocationHandleArgument(handle: unknown): {
  fd: number;
  uuid: string | null;
  consumed?: IpcAllocationHandle;
} {
  if (handle instanceof IpcAllocationHandle) {
    return { fd: handle.fileDescriptor, uuid: handle.uuid, consumed: handle };
  }
  if (typeof handle === 'number') return { fd: checkSize(handle, 'handle'), uuid: null };
  throw new TypeError(
    `handle must be an IpcAllocationHandle or a file descriptor number, got ${describeValue(handle)}`,
  );
}
