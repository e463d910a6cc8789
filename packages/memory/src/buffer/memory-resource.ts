// The base of every memory resource. Buffer names it in types and checks `instanceof` at run
// time; this file names Buffer only in types, so the two files form no run-time cycle.
import type { InspectOptionsStylized, inspect } from 'node:util';
import {
  type BrandedClass,
  CudaStateError,
  describeValue,
  guardMembers,
  inspectCustom,
  type ObjectFacts,
  objectDescription,
} from '@cumem/core-types';
import { type ResourceStatistics, setLimit, statisticsOf } from '../diagnostics/resource-pressure.js';
import type { IpcBufferDescriptor } from '../interop/ipc/ipc-descriptor.js';
import { lookUpResource, registerResource, unregisterResource } from '../resources/resource-registry.js';
import type { Stream } from '../stream/stream.js';
import type { StreamOrderOptions } from '../stream/stream-options.js';
import type { Buffer } from './buffer.js';
import { liveAllocationsOf } from './live-allocations.js';
import type { MemoryFacts } from './memory-facts.js';

/**
 * Frees what a buffer of `resource` owned: through its books, or, for a class of the user's,
 * its `deallocate`. Not exported by the package (it frees any pointer).
 */
export let releaseBufferMemory: (
  resource: MemoryResource,
  handle: bigint,
  size: number,
  stream: Stream | undefined,
) => void;

/** Hands `resource` memory that `Buffer.fromHandle(..., { mr })` wraps (a class of the user's records nothing). */
export let adoptBufferMemory: (resource: MemoryResource, handle: bigint, size: number) => void;

/** @internal True for an object a MemoryResource constructor made (a subclass's included): its brand. */
export let isMemoryResource: (value: unknown) => value is MemoryResource;

/** Gives a built-in resource its books, from its constructor. */
export let setResourceBooks: <R extends MemoryResource>(resource: R, books: ResourceBooks<R>) => void;

/**
 * Where the memory of `resource`'s buffers lives and who can use it: a built-in resource's
 * facts as {@link freezeBuiltIn} recorded them, else the resource's own getters, asked at each read.
 */
export let memoryFactsOf: (resource: MemoryResource) => MemoryFacts;

/** `resource.isClosed` for this package's own hot paths, without the public getter's brand check. */
export let isResourceClosed: (resource: MemoryResource) => boolean;

// Records the facts of a built-in resource made as its class itself (freezeBuiltIn).
let recordMemoryFacts: (resource: MemoryResource, facts: MemoryFacts) => void;

/**
 * The base of every memory resource, as cuda.core's `MemoryResource`. Subclass it to hand your
 * own memory to cumem: implement `allocate`, `deallocate` and the accessors.
 */
export abstract class MemoryResource {
  // Private, so no program can reopen a closed resource or give it another uuid: the built-in
  // resources are frozen (freezeBuiltIn) and their driver handles can be neither rewritten nor
  // shadowed; a class of the user's is left as its author makes it.
  #uuid: string | null = null;
  #closed = false;
  // A built-in resource's books (setResourceBooks); null for a class of the user's.
  #books: ResourceBooks | null = null;
  // The facts of the memory it hands out: its own getters, until freezeBuiltIn records those
  // of a built-in resource, which never change.
  #facts: MemoryFacts = this;

  static {
    releaseBufferMemory = (resource, handle, size, stream) => {
      const books = resource.#books;
      if (books !== null) books.release(resource, handle, size, stream);
      else resource.deallocate(handle, size, stream === undefined ? undefined : { stream });
    };
    adoptBufferMemory = (resource, handle, size) => {
      // An object that only inherits from the prototype (Object.create) has no books to free through.
      if (!(#books in resource)) {
        throw new TypeError(
          'mr must be a MemoryResource made by its constructor (a subclass of MemoryResource), not an object that only inherits from its prototype',
        );
      }
      resource.#books?.adopt(resource, handle, size);
    };
    setResourceBooks = (resource, books) => {
      resource.#books = books;
    };
    isMemoryResource = (value) => typeof value === 'object' && value !== null && #closed in value;
    // An object that only inherits from a resource (Object.create, given as `mr` of an empty
    // wrapper) answers through the getters it inherits, as it always did.
    memoryFactsOf = (resource) => (#facts in resource ? resource.#facts : resource);
    isResourceClosed = (resource) => resource.#closed;
    recordMemoryFacts = (resource, facts) => {
      resource.#facts = facts;
    };
  }

  /** `size` bytes, ordered on `options.stream` (default: the device's default stream; never waits). */
  abstract allocate(size: number, options?: StreamOrderOptions): Buffer;
  /**
   * Returns memory from {@link allocate}; without a stream, in the order of the device's default
   * stream. **Unsafe by nature** (raw pointer): a pointer freed already may belong to a newer
   * allocation by then. The built-in resources refuse one an open Buffer owns.
   */
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

  /**
   * @internal Whether the allocation starting at `pointer` was mapped from another process: the
   * resource's answer for all its memory, unless (VirtualMemoryResource) it imports single buffers.
   */
  mapsAllocationAt(_pointer: bigint): boolean {
    return this.isMapped;
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** A universally unique id: set for IPC-enabled pools and by {@link register}, else null. */
  get uuid(): string | null {
    return this.#uuid;
  }

  /** Closes the resource; buffers already allocated can still be closed. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#uuid !== null) unregisterResource(this.#uuid, this);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * What went through the resource since statistics began ({@link enableStatistics}, a
   * {@link limit} or a tracker): bytes and allocations now, at the peak, in total, and failed
   * allocations. `enabled` false (all zero) until then. Built-in resources only.
   */
  statistics(): ResourceStatistics {
    return statisticsOf(liveAllocationsOf(this));
  }

  /**
   * Starts counting (cheap enough to leave on: a few number updates per allocate and free).
   * Allocations made before are left out. Idempotent.
   * @throws NotSupportedError for a resource that is not built into cumem.
   */
  enableStatistics(): this {
    setLimit(this, liveAllocationsOf(this), undefined);
    return this;
  }

  /** Sets the peaks to the current values. */
  resetPeakStatistics(): void {
    liveAllocationsOf(this)?.accounting?.resetPeaks();
  }

  /**
   * Most bytes the resource may have handed out at once, or null (default) for no limit. An
   * allocation past it first runs out-of-memory recovery, then throws the driver's error
   * (`CudaError` `CUDA_ERROR_OUT_OF_MEMORY`). Setting it enables statistics; allocations made
   * before statistics began do not count against it.
   * @throws TypeError / RangeError for a bad value; NotSupportedError for a resource not built into cumem.
   */
  get limit(): number | null {
    const bytes = liveAllocationsOf(this)?.accounting?.limitBytes;
    return bytes === undefined || bytes === Number.POSITIVE_INFINITY ? null : bytes;
  }

  set limit(bytes: number | null) {
    setLimit(this, liveAllocationsOf(this), bytes);
  }

  /**
   * @internal The uuid a pool resource starts with (its IPC-enabled pool's), from its
   * constructor. Once a resource has a uuid, this changes nothing (as {@link register} refuses).
   */
  protected startUuid(uuid: string | null): void {
    if (this.#uuid === null) this.#uuid = uuid;
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
    if (this.#closed) throw CudaStateError.closed(this.constructor.name);
    if (this.#uuid !== null && this.#uuid !== uuid) {
      throw new RangeError(`this memory resource already has uuid ${this.#uuid}, not ${uuid}`);
    }
    const registered = registerResource(uuid, this) as MemoryResource;
    if (registered === this) this.#uuid = uuid;
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

  static readonly #description = objectDescription(
    resourceKind,
    (value): value is MemoryResource => isMemoryResource(value),
    (resource) => resource.describedFacts(),
  );

  /** `DeviceMemoryResource(device: 0, deviceAccessible: true, hostAccessible: false, closed: false, ...)`. */
  toString(): string {
    return MemoryResource.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link MemoryResource.toString}. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return MemoryResource.#description.inspect(this, depth, options, nodeInspect);
  }

  /**
   * @internal The facts `toString` and `util.inspect` show; a built-in resource adds its own
   * (a pool's handle). A getter of a class of the user's that throws shows as null.
   */
  describedFacts(): ObjectFacts {
    const read = <T extends string | number | boolean | null>(get: () => T): T | null => {
      try {
        return get();
      } catch {
        return null;
      }
    };
    return {
      device: read(() => this.deviceId),
      deviceAccessible: read(() => this.isDeviceAccessible),
      hostAccessible: read(() => this.isHostAccessible),
      managed: read(() => this.isManaged),
      closed: this.#closed,
    };
  }

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

function resourceKind(resource: unknown): string {
  // The class's name as a user's subclass names it; never the object's own properties.
  try {
    const name: unknown = Object.getPrototypeOf(resource as object)?.constructor?.name;
    return typeof name === 'string' && name !== '' ? name : 'MemoryResource';
  } catch {
    // A revoked Proxy refuses even the prototype read.
    return 'MemoryResource';
  }
}

/**
 * Puts the brand check in front of every public member of a built-in resource class (and of
 * the base): a Proxy of a resource, or an object inheriting from one, gets a TypeError naming
 * the class and member, not the engine's private-field error.
 */
export function guardResourceMembers(type: BrandedClass): void {
  guardMembers(type, isMemoryResource, [
    // Answer for any receiver: describing an imitation must not throw.
    'toString',
    inspectCustom,
  ]);
}

guardResourceMembers(MemoryResource);

/**
 * How a built-in resource frees and records its buffers' memory. Package-private, because
 * either call takes any pointer: a program that reached them could free memory an open Buffer
 * still owns (they were public methods once, hidden from the types only).
 */
export interface ResourceBooks<R extends MemoryResource = MemoryResource> {
  /** Frees what a buffer owned; `stream` undefined: the resource's own order. Hot path of `close()`. */
  release(resource: R, handle: bigint, size: number, stream: Stream | undefined): void;
  /** Records memory `Buffer.fromHandle(pointer, size, { mr })` hands it; refuses a pointer an open buffer owns. */
  adopt(resource: R, handle: bigint, size: number): void;
}

/**
 * Freezes a built-in resource made as `Class` itself (`made` is its constructor's
 * `new.target`; a subclass of the user's is left as its author makes it), at the end of its
 * constructor: what it hands the driver (its pool, runtime, stream) can then be neither
 * rewritten nor shadowed by an own property, and its state lives in private fields. `facts`,
 * what its getters answer, are recorded for its buffers to read: a subclass of the user's may
 * override the getters, so its buffers keep asking them.
 */
export function freezeBuiltIn(
  resource: MemoryResource,
  made: unknown,
  Class: unknown,
  facts?: MemoryFacts,
): void {
  if (made !== Class) return;
  if (facts !== undefined) recordMemoryFacts(resource, facts);
  Object.freeze(resource);
}
