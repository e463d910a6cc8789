import { CudaStateError, checkSize, MemHostAllocFlags } from '@cumem/core-types';
import { type Buffer, bufferKind } from '../buffer/buffer.js';
import { allocatedBuffer } from '../buffer/buffer-construction.js';
import { LiveAllocations } from '../buffer/live-allocations.js';
import { pageLockedMemoryFacts } from '../buffer/memory-facts.js';
import {
  freezeBuiltIn,
  guardResourceMembers,
  isResourceClosed,
  MemoryResource,
  type ResourceBooks,
  setResourceBooks,
} from '../buffer/memory-resource.js';
import { allocateWithRecovery } from '../diagnostics/out-of-memory.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import { runtimeDefaultStream } from '../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../stream/stream-options.js';
import { deallocateArguments, waitBeforeFree } from './host-allocation-order.js';

// How close() frees a buffer of LegacyPinnedMemoryResource and Buffer.fromHandle hands it memory (memory-resource.ts).
let legacyPinnedBooks: ResourceBooks<LegacyPinnedMemoryResource>;

/**
 * Page-locked host memory from the classic allocator (`cuMemHostAlloc`, portable to every
 * context). Works on every driver; allocation and free are not stream-ordered, so a free waits
 * for the buffer's stream first. Prefer {@link PinnedMemoryResource} on CUDA 13 drivers.
 */
export class LegacyPinnedMemoryResource extends MemoryResource {
  static {
    legacyPinnedBooks = {
      release: (resource, handle, size, stream) => resource.#releaseBuffer(handle, size, stream),
      adopt: (resource, handle) => resource.#live.adopt(handle, 'LegacyPinnedMemoryResource'),
    };
  }

  private readonly runtime: DriverRuntime;
  // Pointers of open buffers, so that deallocate cannot free one under its buffer.
  readonly #live = new LiveAllocations(this);

  constructor() {
    super();
    this.runtime = activeRuntime();
    setResourceBooks(this, legacyPinnedBooks);
    freezeBuiltIn(this, new.target, LegacyPinnedMemoryResource, pageLockedMemoryFacts);
  }

  /**
   * `size` bytes of page-locked host memory. Allocates at once; `options.stream` only orders its later free.
   * @throws CudaStateError when closed.
   */
  allocate(size: number, options?: StreamOrderOptions): Buffer {
    // The options first: reading them runs the caller's getters, which may close this resource.
    const given = streamOption(options);
    if (isResourceClosed(this)) throw CudaStateError.closed('LegacyPinnedMemoryResource');
    checkSize(size, 'size');
    const runtime = this.runtime;
    const stream = given ?? runtimeDefaultStream(runtime, runtime.currentDevice);
    runtime.makeCurrent(stream.ordinal);
    const handle =
      size === 0
        ? 0n
        : allocateWithRecovery(this, this.#live, size, 'cuMemHostAlloc', () =>
            runtime.driver.memHostAlloc(size, MemHostAllocFlags.Portable),
          );
    if (size !== 0) this.#live.add(handle, size);
    return allocatedBuffer(bufferKind, runtime, handle, size, this, stream);
  }

  /**
   * Frees memory from {@link allocate} after `options.stream` (default: the default stream) has
   * passed it. Memory an open Buffer owns is refused: close the Buffer instead.
   * @throws CudaStateError when an open Buffer of this resource owns `pointer`.
   */
  deallocate(pointer: bigint | number, size: number, options?: StreamOrderOptions): void {
    const { handle, stream } = deallocateArguments(this.runtime, pointer, size, options);
    this.#live.checkNotOwned(handle, 'LegacyPinnedMemoryResource');
    this.#releaseBuffer(handle, size, stream);
  }

  // Through the books: close() and the finalizer.
  #releaseBuffer(handle: bigint, size: number, stream: Stream | undefined): void {
    if (size === 0) return;
    waitBeforeFree(this.runtime, this.runtime.currentDevice, stream);
    this.runtime.driver.memFreeHost(handle);
    this.#live.delete(handle, size);
  }

  /** Always -1: host memory belongs to no device. */
  get deviceId(): number {
    return pageLockedMemoryFacts.deviceId;
  }

  /** Always true (unified addressing maps page-locked memory for every device). */
  get isDeviceAccessible(): boolean {
    return pageLockedMemoryFacts.isDeviceAccessible;
  }

  /** Always true. */
  get isHostAccessible(): boolean {
    return pageLockedMemoryFacts.isHostAccessible;
  }
}

guardResourceMembers(LegacyPinnedMemoryResource);
