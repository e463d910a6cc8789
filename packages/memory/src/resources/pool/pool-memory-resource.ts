import {
  CudaError,
  CudaStateError,
  checkAddress,
  checkSize,
  type Driver,
  type DriverHandle,
  hex,
  type ObjectFacts,
} from '@cumem/core-types';
import { type Buffer, bufferKind } from '../../buffer/buffer.js';
import { allocatedBuffer } from '../../buffer/buffer-construction.js';
import { LiveAllocations } from '../../buffer/live-allocations.js';
import {
  guardResourceMembers,
  isResourceClosed,
  MemoryResource,
  type ResourceBooks,
  setResourceBooks,
} from '../../buffer/memory-resource.js';
import { importedMemoryError, isWrongPoolKind } from '../../interop/ipc/imported-memory-check.js';
import { ImportedDescriptors, importedPointerCounts } from '../../interop/ipc/imported-pointer-counts.js';
import { exportedHandle, type IpcAllocationHandle } from '../../interop/ipc/ipc-allocation-handle.js';
import { type IpcBufferDescriptor, makeIpcDescriptor } from '../../interop/ipc/ipc-descriptor.js';
import { type DriverRuntime, foreignDriverError } from '../../runtime/driver-runtime.js';
import { forgetFinalizer, registerFinalizer } from '../../runtime/object-finalizer.js';
import { runtimeDefaultStream, Stream } from '../../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../../stream/stream-options.js';
import { type PoolAttributes, poolAttributes } from './pool-attributes.js';
import { recoverPoolAllocation } from './pool-recovery.js';
import type { PoolSetup } from './pool-setup.js';
import { allDevices, destroyAfterQueuedFrees, type QueuedFrees } from './pool-teardown.js';

export type { PoolAttributes };

// How close() frees a pool buffer and Buffer.fromHandle hands one memory (memory-resource.ts).
let poolBooks: ResourceBooks<PoolMemoryResource>;

/** The stream-ordered pool resources (device and pinned): allocation through `cuMemAllocFromPoolAsync`. */
export abstract class PoolMemoryResource extends MemoryResource {
  static {
    poolBooks = {
      release: (resource, handle, size, stream) => resource.#releaseBuffer(handle, size, stream),
      adopt: (resource, handle) => resource.#live.adopt(handle, resource.constructor.name),
    };
  }

  /** @internal */ readonly runtime: DriverRuntime;
  /** @internal */ readonly pool: DriverHandle;
  private readonly owned: boolean;
  private readonly ipcEnabled: boolean;
  private readonly mapped: boolean;
  /** @internal */ readonly ordinal: number;
  #stream: Stream | undefined = undefined;
  #allocationHandle: IpcAllocationHandle | undefined = undefined;
  #attributeView: PoolAttributes | undefined = undefined;
  // Buffers handed out and not yet freed. cuMemPoolDestroy on a pool that still has allocations
  // is documented to wait for them, but on a CUDA 13.0 driver closing a pinned pool
  // before its buffers, then freeing them with cuMemFreeAsync, made a later cuStreamSynchronize
  // of that stream crash the process or never return (the buffer and memory-resource tests).
  // So close() destroys an owned pool only once the last of its buffers has been freed. Each
  // pointer has one owner: deallocate refuses a live buffer's pointer (see LiveAllocations).
  readonly #live = new LiveAllocations(this);
  readonly #descriptors = new ImportedDescriptors();
  #destroyPending = false;
  /** Set when the first buffer imported through this (imported) pool showed it is of another kind or device. */
  #wrongKind: TypeError | undefined;
  // Devices whose streams frees were queued on since the pool was made. cuMemPoolDestroy with
  // frees still queued behind device work crashed the CUDA 13.0 driver at the next sync (many
  // pinned pools, each closed right after its buffer's free), so the pool is destroyed only after
  // those devices' contexts have been synchronized (see destroyAfterQueuedFrees). A field of its
  // own object, because the finalizer (which may not reference the resource) needs it too.
  readonly #queuedFrees: QueuedFrees = { devices: 0 };

  /** @internal Devices with frees queued on this pool (one bit each), for out-of-memory recovery. */
  get queuedFreeDevices(): number {
    return this.#queuedFrees.devices;
  }

  /** @internal */
  constructor(setup: PoolSetup) {
    super();
    this.runtime = setup.runtime;
    this.pool = setup.pool;
    this.owned = setup.owned;
    this.ipcEnabled = setup.ipcEnabled;
    this.mapped = setup.mapped;
    this.ordinal = setup.ordinal;
    this.startUuid(setup.uuid);
    setResourceBooks(this, poolBooks);
    if (setup.owned) {
      const { runtime, pool, ordinal } = setup;
      const queuedFrees = this.#queuedFrees;
      registerFinalizer(this, () => destroyAfterQueuedFrees(runtime, pool, ordinal, queuedFrees));
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
    if (this.#attributeView === undefined) this.#attributeView = poolAttributes(this);
    return this.#attributeView;
  }

  /**
   * Allocates `size` bytes from the pool, ordered on `options.stream` (default: the device's
   * default stream). Never waits. Hot path: no allocation besides the Buffer.
   * @throws RangeError / TypeError for a bad size; CudaStateError when closed; TypeError for an imported pool.
   */
  allocate(size: number, options?: StreamOrderOptions): Buffer {
    // The options first: reading them runs the caller's getters, which may close this resource
    // (its pool destroyed: an allocation from it would hand the driver a dead handle).
    let stream = options === undefined ? undefined : streamOption(options);
    if (isResourceClosed(this)) throw CudaStateError.closed(this.constructor.name);
    if (this.mapped) throw mappedAllocation(this);
    // checkSize's rule, with its errors built out of line, keeping this hot function small.
    if (!(Number.isSafeInteger(size) && size >= 0)) checkSize(size, 'size');
    if (stream === undefined) stream = this.#stream ?? this.ownDefaultStream();
    else if (stream.runtime !== this.runtime) throw foreignStream(this, stream);
    const runtime = this.runtime;
    runtime.makeCurrent(stream.ordinal);
    if (size === 0) return allocatedBuffer(bufferKind, runtime, 0n, 0, this, stream);
    // Statistics, limit: one null check while off. Out of memory: recovery (pool-recovery.ts).
    const accounting = this.#live.accounting;
    let handle: bigint;
    if (accounting === null || accounting.fits(size)) {
      try {
        handle = runtime.driver.memAllocFromPoolAsync(size, this.pool, stream.streamHandle);
      } catch (error) {
        handle = recoverPoolAllocation(this, error, size, stream);
      }
    } else handle = recoverPoolAllocation(this, null, size, stream);
    this.#live.add(handle, size);
    return allocatedBuffer(bufferKind, runtime, handle, size, this, stream);
  }

  /**
   * Returns `size` bytes at `pointer` to the pool, ordered on `options.stream` (default: the
   * device's default stream). Never waits. Works after `close()`. Memory an open Buffer owns is
   * refused: close the Buffer instead.
   * @throws CudaStateError when an open Buffer of this resource owns `pointer`.
   */
  deallocate(pointer: bigint | number, size: number, options?: StreamOrderOptions): void {
    const handle = checkAddress(pointer, 'pointer');
    checkSize(size, 'size');
    const stream = streamOption(options);
    if (stream !== undefined && stream.runtime !== this.runtime) throw foreignStream(this, stream);
    this.#live.checkNotOwned(handle, this.constructor.name);
    this.#releaseBuffer(handle, size, stream);
  }

  // Hot path of `buffer.close()` (through poolBooks).
  #releaseBuffer(handle: bigint, size: number, stream: Stream | undefined): void {
    if (size === 0) return;
    // An imported pointer is freed when its last buffer closes (through this resource or another
    // import of the pool), from the books of the resource that opened it first.
    let books: PoolMemoryResource = this;
    if (this.mapped) {
      const last = importedPointerCounts(this.runtime).release(handle);
      if (last === null) return;
      if (last instanceof PoolMemoryResource) books = last;
      books.#descriptors.forget(handle);
    }
    // A stream closed since the allocation can no longer order the free: use the default one.
    const target =
      stream === undefined || !Stream.isOpenStream(stream)
        ? (this.#stream ?? this.ownDefaultStream())
        : stream;
    this.runtime.makeCurrent(target.ordinal);
    this.runtime.driver.memFreeAsync(handle, target.streamHandle);
    books.#queuedFrees.devices |= target.ordinal < 31 ? 1 << target.ordinal : allDevices;
    books.#live.delete(handle, size);
    if (books.#destroyPending && books.#live.count === 0) books.#destroyPool();
  }

  /** @internal Out-of-memory recovery: gives the pool's unused reserve back to the device. */
  trimReserve(): void {
    if (this.isClosed || this.mapped) return;
    this.runtime.makeCurrent(this.ordinal);
    this.runtime.driver.memPoolTrimTo(this.pool, 0);
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
    if (this.#allocationHandle === undefined || this.#allocationHandle.isClosed) {
      this.runtime.makeCurrent(this.ordinal);
      const fd = this.runtime.driver.memPoolExportToFileDescriptor(this.pool);
      this.#allocationHandle = exportedHandle(fd, this.uuid);
    }
    return this.#allocationHandle;
  }

  /**
   * Closes the resource: destroys an owned pool, at once or, while buffers from it are still open,
   * when the last of them is freed. Idempotent.
   */
  override close(): void {
    if (this.isClosed) return;
    super.close();
    this.#allocationHandle?.close();
    this.#allocationHandle = undefined;
    if (this.owned) {
      forgetFinalizer(this);
      // With buffers outstanding, the last one's free destroys the pool (see `live`).
      if (this.#live.count > 0) this.#destroyPending = true;
      else this.#destroyPool();
    }
  }

  // Private: destroying the pool frees every buffer of it still open.
  #destroyPool(): void {
    this.#destroyPending = false;
    destroyAfterQueuedFrees(this.runtime, this.pool, this.ordinal, this.#queuedFrees);
  }

  /** @internal */
  override exportIpcBuffer(handle: bigint, size: number): IpcBufferDescriptor {
    if (!this.ipcEnabled) return super.exportIpcBuffer(handle, size);
    if (this.mapped) return this.#reexport(handle, size);
    // cuMemPoolExportPointer answers CUDA_ERROR_INVALID_VALUE until the pool itself has been
    // shared (seen on CUDA 13.0), so a buffer's descriptor first exports the pool's handle.
    this.getAllocationHandle();
    this.runtime.makeCurrent(this.ordinal);
    return makeIpcDescriptor(this.runtime.driver.memPoolExportPointer(handle), size, this.uuid);
  }

  // The driver does not export a pointer it imported (CUDA_ERROR_INVALID_VALUE): a buffer imported
  // through this pool is shared onward by the descriptor it was opened with, which any process
  // holding the pool's allocation handle can open (cuda.core's re-export does the same).
  #reexport(handle: bigint, size: number): IpcBufferDescriptor {
    this.checkOpen();
    const bytes = this.#descriptors.descriptorOf(handle);
    if (bytes === undefined) {
      throw new TypeError(
        `this buffer was imported through another import of its pool: share it through the ${this.constructor.name} that opened it first, or from the exporting process`,
      );
    }
    return makeIpcDescriptor(bytes, size, this.uuid);
  }

  /** @internal */
  override importIpcBuffer(bytes: Uint8Array, size: number, stream: Stream | undefined): Buffer {
    if (!this.mapped) return super.importIpcBuffer(bytes, size, stream);
    this.checkOpen();
    if (stream !== undefined && stream.runtime !== this.runtime) throw foreignStream(this, stream);
    const target = stream ?? this.#stream ?? this.ownDefaultStream();
    this.runtime.makeCurrent(target.ordinal);
    const driver = this.runtime.driver;
    const opens = importedPointerCounts(this.runtime);
    const opened = this.#descriptors.openedFor(bytes);
    const handle = opened ?? importPointer(driver, this.pool, bytes);
    const repeated = opened !== undefined || opens.has(handle);
    let refused: unknown;
    try {
      refused = importedMemoryError(driver, handle, size, this);
    } catch (error) {
      refused = error;
    }
    if (refused !== undefined) {
      // The driver cannot tell an imported pool's kind at import; the first buffer does, and from
      // then on every use of the resource is refused with the same finding (checkOpen).
      if (isWrongPoolKind(refused)) this.#wrongKind ??= refused;
      // A repeated import is the same mapping as an open buffer's: freeing it would unmap that.
      if (!repeated) driver.memFreeAsync(handle, target.streamHandle);
      throw refused;
    }
    if (size === 0) {
      // An empty buffer never frees anything, so it keeps no mapping open.
      if (!repeated) driver.memFreeAsync(handle, target.streamHandle);
      return allocatedBuffer(bufferKind, this.runtime, handle, 0, this, target);
    }
    opens.add(handle, this);
    if (!repeated) {
      this.#descriptors.remember(bytes, handle);
      this.#live.add(handle, size);
    }
    return allocatedBuffer(bufferKind, this.runtime, handle, size, this, target);
  }

  /** @internal The resource's facts and its pool's handle (see MemoryResource.toString). */
  override describedFacts(): ObjectFacts {
    return {
      ...super.describedFacts(),
      pool: hex(this.pool),
      owned: this.owned,
      ipcEnabled: this.ipcEnabled,
    };
  }

  /** @internal */
  protected checkOpen(): void {
    if (this.isClosed) throw CudaStateError.closed(this.constructor.name);
    if (this.#wrongKind !== undefined)
      throw new TypeError(this.#wrongKind.message, { cause: this.#wrongKind });
  }

  private ownDefaultStream(): Stream {
    this.#stream = runtimeDefaultStream(this.runtime, this.ordinal);
    return this.#stream;
  }
}

guardResourceMembers(PoolMemoryResource);

// A host pool's allocation imported again while the free of an earlier import of it (by a
// resource already closed) is still queued answers CUDA_ERROR_ALREADY_MAPPED (CUDA 13.0 drivers):
// the driver keeps the mapping until that cuMemFreeAsync runs. Once the device has finished
// its queued work the import succeeds.
function importPointer(driver: Driver, pool: DriverHandle, bytes: Uint8Array): bigint {
  try {
    return driver.memPoolImportPointer(pool, bytes);
  } catch (error) {
    if (!(CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_ALREADY_MAPPED')) throw error;
    driver.contextSynchronize();
    return driver.memPoolImportPointer(pool, bytes);
  }
}

function mappedAllocation(resource: MemoryResource): TypeError {
  return new TypeError(
    `this ${resource.constructor.name} is imported from another process (isMapped): it cannot allocate`,
  );
}

function foreignStream(resource: PoolMemoryResource, stream: Stream): CudaStateError {
  return foreignDriverError(
    resource.runtime,
    stream.runtime,
    'the stream',
    `this ${resource.constructor.name}`,
  );
}
