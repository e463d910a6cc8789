import {
  CudaStateError,
  checkOptions,
  checkSize,
  Device,
  DeviceAttribute,
  type Location,
  locationToMemLocation,
  MemAdvise,
  MemAttachFlags,
  NotSupportedError,
} from '@cumem/core-types';
import { allocatedBuffer } from '../../buffer/buffer-construction.js';
import { LiveAllocations } from '../../buffer/live-allocations.js';
import {
  freezeBuiltIn,
  guardResourceMembers,
  MemoryResource,
  type ResourceBooks,
  setResourceBooks,
} from '../../buffer/memory-resource.js';
import { allocateWithRecovery } from '../../diagnostics/out-of-memory.js';
import { activeRuntime, type DriverRuntime } from '../../runtime/driver-runtime.js';
import { checkLocation, checkNumaSupported } from '../../runtime/location-arguments.js';
import { runtimeDefaultStream, type Stream } from '../../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../../stream/stream-options.js';
import { deallocateArguments, waitBeforeFree } from '../host-allocation-order.js';
import { type ManagedBuffer, managedBufferKind } from './managed-buffer.js';

/** Options for {@link ManagedMemoryResource}. */
export interface ManagedMemoryResourceOptions {
  /** Preferred location advised for every allocation. Default: none. */
  readonly preferredLocation?: Location;
}

// How close() frees a buffer of ManagedMemoryResource and Buffer.fromHandle hands it memory (memory-resource.ts).
let managedBooks: ResourceBooks<ManagedMemoryResource>;

/**
 * Managed (unified) memory, returned as {@link ManagedBuffer}s whose advice works.
 *
 * Deviation from cuda.core, which allocates from a managed memory pool: on the CUDA 13.0 driver
 * memory from a managed pool rejects every `cuMemAdvise` with CUDA_ERROR_NOT_SUPPORTED, so
 * `readMostly`, `preferredLocation` and `accessedBy` could never work on what such a resource
 * returns. This resource uses `cuMemAllocManaged` (attached globally), which accepts advice on
 * every driver. It is therefore not stream-ordered: allocation happens at once and a free
 * waits for the buffer's stream.
 */
export class ManagedMemoryResource extends MemoryResource {
  static {
    managedBooks = {
      release: (resource, handle, size, stream) => resource.#releaseBuffer(handle, size, stream),
      adopt: (resource, handle) => resource.#live.adopt(handle, 'ManagedMemoryResource'),
    };
  }

  private readonly runtime: DriverRuntime;
  // Pointers of open buffers, so that deallocate cannot free one under its buffer.
  readonly #live = new LiveAllocations(this);
  private readonly preferred: Location | null;

  /**
   * @throws TypeError for a preferredLocation that is not a location; NotSupportedError for a
   *   NUMA host on a driver without them, or a device without managed memory.
   */
  constructor(options?: ManagedMemoryResourceOptions) {
    super();
    const { preferredLocation } = checkOptions(options, 'ManagedMemoryResource options');
    if (preferredLocation !== undefined) checkLocation(preferredLocation, 'preferredLocation');
    const runtime = activeRuntime();
    if (preferredLocation !== undefined) checkNumaSupported(runtime, preferredLocation, 'preferredLocation');
    const ordinal = Device.isInstance(preferredLocation) ? preferredLocation.ordinal : runtime.currentDevice;
    if (ordinal >= runtime.deviceCount)
      throw new RangeError(`preferredLocation device ${ordinal} does not exist`);
    if (runtime.driver.deviceGetAttribute(DeviceAttribute.ManagedMemory, ordinal) === 0) {
      throw new NotSupportedError(
        `device ${ordinal} cannot allocate managed memory (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 0)`,
      );
    }
    this.runtime = runtime;
    this.preferred = preferredLocation ?? null;
    setResourceBooks(this, managedBooks);
    freezeBuiltIn(this, new.target, ManagedMemoryResource);
  }

  /** The preferred location advised for every allocation, or null. */
  get preferredLocation(): Location | null {
    return this.preferred;
  }

  /**
   * `size` bytes of managed memory, with the resource's preferred location advised.
   * Allocates at once; `options.stream` only orders its later free.
   */
  allocate(size: number, options?: StreamOrderOptions): ManagedBuffer {
    // The options first: reading them runs the caller's getters, which may close this resource.
    const given = streamOption(options);
    if (this.isClosed) throw CudaStateError.closed('ManagedMemoryResource');
    checkSize(size, 'size');
    const runtime = this.runtime;
    const stream = given ?? runtimeDefaultStream(runtime, this.workDevice());
    runtime.makeCurrent(stream.ordinal);
    const handle =
      size === 0
        ? 0n
        : allocateWithRecovery(this, this.#live, size, 'cuMemAllocManaged', () =>
            runtime.driver.memAllocManaged(size, MemAttachFlags.Global),
          );
    if (this.preferred !== null && size !== 0) {
      try {
        runtime.driver.memAdvise(
          handle,
          size,
          MemAdvise.SetPreferredLocation,
          locationToMemLocation(this.preferred),
        );
      } catch (error) {
        runtime.driver.memFree(handle);
        throw error;
      }
    }
    if (size !== 0) this.#live.add(handle, size);
    return allocatedBuffer(managedBufferKind, runtime, handle, size, this, stream);
  }

  /**
   * Frees memory from {@link allocate} after `options.stream` (default: the default stream) has
   * passed it. Memory an open Buffer owns is refused: close the Buffer instead.
   * @throws CudaStateError when an open Buffer of this resource owns `pointer`.
   */
  deallocate(pointer: bigint | number, size: number, options?: StreamOrderOptions): void {
    const { handle, stream } = deallocateArguments(this.runtime, pointer, size, options);
    this.#live.checkNotOwned(handle, 'ManagedMemoryResource');
    this.#releaseBuffer(handle, size, stream);
  }

  // Through the books: close() and the finalizer.
  #releaseBuffer(handle: bigint, size: number, stream: Stream | undefined): void {
    if (size === 0) return;
    waitBeforeFree(this.runtime, this.workDevice(), stream);
    this.runtime.driver.memFree(handle);
    this.#live.delete(handle, size);
  }

  /** The preferred device's ordinal, or -1 when the preference is not a device. */
  get deviceId(): number {
    return Device.isInstance(this.preferred) ? this.preferred.ordinal : -1;
  }

  /** Always true. */
  get isDeviceAccessible(): boolean {
    return true;
  }

  /** Always true. */
  get isHostAccessible(): boolean {
    return true;
  }

  /** Always true. */
  override get isManaged(): boolean {
    return true;
  }

  private workDevice(): number {
    return Device.isInstance(this.preferred) ? this.preferred.ordinal : this.runtime.currentDevice;
  }
}

guardResourceMembers(ManagedMemoryResource);
