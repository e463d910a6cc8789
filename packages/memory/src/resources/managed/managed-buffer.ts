import {
  CU_DEVICE_CPU,
  CU_DEVICE_INVALID,
  checkBoolean,
  Device,
  guardMembers,
  Host,
  type Location,
  locationToMemLocation,
  MemAdvise,
  type MemLocation,
  MemLocationType,
  MemRangeAttribute,
  memLocationToLocation,
} from '@cumem/core-types';
import { Buffer, type BufferKind, checkStreamDriver } from '../../buffer/buffer.js';
import { bufferState } from '../../buffer/buffer-base.js';
import {
  defineBufferKind,
  type FromHandleOptions,
  wrapExternalMemory,
} from '../../buffer/buffer-construction.js';
import { checkLocation, checkNumaSupported } from '../../runtime/location-arguments.js';
import { runtimeDefaultStream, type Stream } from '../../stream/stream.js';
import { type StreamOrderOptions, streamOption } from '../../stream/stream-options.js';
import { AccessedByView, checkLocationList } from './accessed-by-view.js';
import {
  adviseRange,
  checkDiscardSupported,
  discardPrefetchRange,
  discardRange,
  prefetchRange,
} from './managed-range.js';

// Read-mostly and unset-preferred advice ignore the location but need a valid one: one frozen
// device location per ordinal, so the hot setters allocate nothing.
const deviceLocations: MemLocation[] = [];

function deviceLocation(ordinal: number): MemLocation {
  let location = deviceLocations[ordinal];
  if (location === undefined) {
    location = Object.freeze({ type: MemLocationType.Device, id: ordinal });
    deviceLocations[ordinal] = location;
  }
  return location;
}

let isManagedBuffer: (value: unknown) => value is ManagedBuffer;

/**
 * Managed (unified) memory with cuda.core's property-style advice: `readMostly`,
 * `preferredLocation`, `accessedBy`, and `prefetch` / `discard` / `discardPrefetch`. Returned
 * by `ManagedMemoryResource.allocate`, or wraps a managed pointer with `ManagedBuffer.fromHandle`.
 */
export class ManagedBuffer extends Buffer {
  #accessedByView: AccessedByView | undefined = undefined;
  // Whether the last preferred-location advice through this object named a host NUMA node.
  #advisedHostNuma = false;

  /**
   * {@link Buffer.fromHandle} for managed memory: wraps a managed pointer (cuMemAllocManaged or
   * a managed pool's) as a ManagedBuffer, with the same options and the same caveats.
   * @throws TypeError for memory that is not managed, and as {@link Buffer.fromHandle}.
   */
  static override fromHandle<B extends Buffer>(
    this: { readonly prototype: B },
    pointer: bigint | number,
    size: number,
    options?: FromHandleOptions,
  ): B {
    // A class inheriting from ManagedBuffer is refused, as Buffer.fromHandle refuses it.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class called on
    if ((this as unknown) !== ManagedBuffer) {
      // biome-ignore lint/complexity/noThisInStatic: the same class, handed on to be refused
      return Buffer.fromHandle.call(this as never, pointer, size, options) as B;
    }
    return wrapExternalMemory(managedBufferKind, pointer, size, options, (state) => {
      if (!state.isManaged) {
        throw new TypeError(
          'ManagedBuffer.fromHandle needs managed memory (cuMemAllocManaged or a managed pool); use Buffer.fromHandle',
        );
      }
    }) as unknown as B;
  }
  /** Whether read-mostly advice is applied (asks the driver). Setting it advises the driver. */
  get readMostly(): boolean {
    ManagedBuffer.#checkOpen(this);
    this.#bindContext();
    return (
      bufferState(this).runtime.driver.memRangeGetAttribute(
        bufferState(this).pointer,
        bufferState(this).size,
        MemRangeAttribute.ReadMostly,
      ) !== 0
    );
  }

  set readMostly(value: boolean) {
    checkBoolean(value, 'readMostly');
    ManagedBuffer.#checkOpen(this);
    // One device lookup and one context check: this setter is timed against C (bench/).
    const ordinal = bufferState(this).workDevice(null);
    const runtime = bufferState(this).runtime;
    runtime.makeCurrent(ordinal);
    adviseRange(
      runtime.driver,
      bufferState(this).pointer,
      bufferState(this).size,
      value ? MemAdvise.SetReadMostly : MemAdvise.UnsetReadMostly,
      deviceLocation(ordinal),
    );
  }

  /**
   * The advised preferred location, or null. Host locations keep their NUMA node where the
   * driver reports it (`capabilities.memoryLocations` and a HostNuma read-back); otherwise they
   * read back as `new Host()`. Setting `null` removes the advice.
   */
  get preferredLocation(): Location | null {
    ManagedBuffer.#checkOpen(this);
    this.#bindContext();
    const driver = bufferState(this).runtime.driver;
    if (bufferState(this).runtime.capabilities.memoryLocations) {
      const type = driver.memRangeGetAttribute(
        bufferState(this).pointer,
        bufferState(this).size,
        MemRangeAttribute.PreferredLocationType,
      );
      // A CUDA 13.0 driver accepts HostNuma advice but reads the type back as Invalid: only
      // then ask the legacy attribute.
      if (type !== MemLocationType.Invalid) {
        const id = driver.memRangeGetAttribute(
          bufferState(this).pointer,
          bufferState(this).size,
          MemRangeAttribute.PreferredLocationId,
        );
        return memLocationToLocation({ type: type as MemLocationType, id });
      }
    }
    const ordinal = driver.memRangeGetAttribute(
      bufferState(this).pointer,
      bufferState(this).size,
      MemRangeAttribute.PreferredLocation,
    );
    if (ordinal === CU_DEVICE_INVALID) {
      // The same driver reports no preference at all (legacy attribute included) after HostNuma
      // advice: a host preference this object set then reads back as the spec's plain `new Host()`.
      return this.#advisedHostNuma ? new Host() : null;
    }
    return ordinal === CU_DEVICE_CPU ? new Host() : new Device(ordinal);
  }

  set preferredLocation(location: Location | null) {
    if (location !== null) checkLocation(location, 'preferredLocation');
    ManagedBuffer.#checkOpen(this);
    if (location === null) {
      this.#advise(MemAdvise.UnsetPreferredLocation, this.#anyLocation());
      this.#advisedHostNuma = false;
      return;
    }
    checkNumaSupported(bufferState(this).runtime, location, 'preferredLocation');
    const memLocation = locationToMemLocation(location);
    this.#advise(MemAdvise.SetPreferredLocation, memLocation);
    this.#advisedHostNuma =
      memLocation.type === MemLocationType.HostNuma || memLocation.type === MemLocationType.HostNumaCurrent;
  }

  /** The locations advised as accessors: a live Set-like view (see {@link AccessedByView}). */
  get accessedBy(): AccessedByView {
    ManagedBuffer.#checkOpen(this);
    // The view asks through these closures, not through members a program could replace.
    this.#accessedByView ??= AccessedByView.of({
      queryAccessedBy: () => this.#queryAccessedBy(),
      adviseAccessedBy: (location, set) => this.#adviseAccessedBy(location, set),
      checkAdvisable: () => ManagedBuffer.#checkOpen(this),
    });
    return this.#accessedByView;
  }

  /**
   * Makes exactly `locations` the advised accessors, all or nothing: every element is checked
   * first, then only the difference from the driver's current list is advised, and when the
   * driver refuses one change the changes already made are undone before the error is thrown.
   * @throws TypeError (state unchanged, driver untouched) for a non-iterable, or an element that
   *   is not a Device or `new Host()` (the driver takes no NUMA host for this advice).
   */
  set accessedBy(locations: Iterable<Location>) {
    const target = checkLocationList(locations);
    ManagedBuffer.#checkOpen(this);
    const current = this.#queryAccessedBy();
    const changes: [Location, boolean][] = [];
    for (const location of current) if (!target.includes(location)) changes.push([location, false]);
    for (const location of target) if (!current.includes(location)) changes.push([location, true]);
    let applied = 0;
    try {
      for (; applied < changes.length; applied++) {
        const [location, set] = changes[applied] as [Location, boolean];
        this.#adviseAccessedBy(location, set);
      }
    } catch (error) {
      // Best effort: undoing an advice the driver just accepted is expected to succeed; the
      // original error is what the caller needs either way.
      for (let i = applied - 1; i >= 0; i--) {
        const [location, set] = changes[i] as [Location, boolean];
        try {
          this.#adviseAccessedBy(location, !set);
        } catch {}
      }
      throw error;
    }
  }

  /**
   * Migrates the pages to `location` (`cuMemPrefetchAsync`).
   * @throws TypeError for a non-location; NotSupportedError for a NUMA host on a driver without them.
   */
  prefetch(location: Location, options?: StreamOrderOptions): void {
    ManagedBuffer.#movePages(this, location, options, 'prefetch', prefetchRange);
  }

  /**
   * Discards the contents (`cuMemDiscardBatchAsync` with one range): the pages may read back as
   * anything until written. CUDA 13.0 drivers. Same as `discard(buffer)` of `@cumem/utils`.
   * @throws NotSupportedError on drivers without the batch entry points (discard has no
   *   single-range entry point).
   */
  discard(options?: StreamOrderOptions): void {
    const stream = checkStreamDriver(bufferState(this), streamOption(options));
    ManagedBuffer.#checkOpen(this);
    checkDiscardSupported(bufferState(this).runtime.driver, 'discard()');
    const target = this.#orderOn(stream);
    discardRange(
      bufferState(this).runtime.driver,
      bufferState(this).pointer,
      bufferState(this).size,
      target.streamHandle,
    );
    this.#finish(target, stream);
  }

  /**
   * Discards the contents and prefetches the (now undefined) pages to `location`
   * (`cuMemDiscardAndPrefetchBatchAsync` with one range). A driver without that CUDA 13.0 entry
   * point gets `cuMemPrefetchAsync` instead: after a discard the contents are undefined, so
   * keeping them is allowed. Same as `discardPrefetch(buffer, location)` of `@cumem/utils`.
   * @throws TypeError for a non-location; NotSupportedError for a NUMA host on a driver without them.
   */
  discardPrefetch(location: Location, options?: StreamOrderOptions): void {
    ManagedBuffer.#movePages(this, location, options, 'discardPrefetch', discardPrefetchRange);
  }

  // Open, and a ManagedBuffer by its private state: a program may give any Buffer this class's
  // prototype (buffers are extensible), and advice over memory that is not managed is refused
  // here, before any driver call.
  static #checkOpen(buffer: ManagedBuffer): void {
    if (!(#advisedHostNuma in buffer)) {
      throw new TypeError('this is not a ManagedBuffer: managed-memory methods need one');
    }
    bufferState(buffer).checkOpen();
  }

  // prefetch and discardPrefetch: the same checks and stream order around a different move. A
  // static private method, so nothing new is reachable on the prototype, and an imitation of a
  // ManagedBuffer fails at the same check as before.
  static #movePages(
    buffer: ManagedBuffer,
    location: Location,
    options: StreamOrderOptions | undefined,
    method: string,
    move: typeof prefetchRange,
  ): void {
    checkLocation(location, 'location');
    const stream = checkStreamDriver(bufferState(buffer), streamOption(options));
    ManagedBuffer.#checkOpen(buffer);
    checkNumaSupported(bufferState(buffer).runtime, location, method);
    const target = buffer.#orderOn(stream);
    move(
      bufferState(buffer).runtime.driver,
      bufferState(buffer).pointer,
      bufferState(buffer).size,
      locationToMemLocation(location),
      target.streamHandle,
    );
    buffer.#finish(target, stream);
  }

  #queryAccessedBy(): Location[] {
    ManagedBuffer.#checkOpen(this);
    this.#bindContext();
    const ordinals = bufferState(this).runtime.driver.memRangeGetAccessedBy(
      bufferState(this).pointer,
      bufferState(this).size,
    );
    const result: Location[] = [];
    for (const ordinal of ordinals) {
      if (ordinal === CU_DEVICE_CPU) result.push(new Host());
      else if (ordinal >= 0) result.push(new Device(ordinal));
    }
    return result;
  }

  #adviseAccessedBy(location: Location, set: boolean): void {
    this.#advise(set ? MemAdvise.SetAccessedBy : MemAdvise.UnsetAccessedBy, locationToMemLocation(location));
  }

  #advise(advice: number, location: MemLocation): void {
    this.#bindContext();
    adviseRange(
      bufferState(this).runtime.driver,
      bufferState(this).pointer,
      bufferState(this).size,
      advice,
      location,
    );
  }

  #anyLocation(): MemLocation {
    return deviceLocation(bufferState(this).workDevice(null));
  }

  #bindContext(): void {
    bufferState(this).runtime.makeCurrent(bufferState(this).workDevice(null));
  }

  #orderOn(stream: Stream | undefined): Stream {
    const target =
      stream ?? runtimeDefaultStream(bufferState(this).runtime, bufferState(this).workDevice(null));
    bufferState(this).runtime.makeCurrent(target.ordinal);
    return target;
  }

  #finish(target: Stream, given: Stream | undefined): void {
    if (given === undefined) bufferState(this).runtime.driver.streamSynchronize(target.streamHandle);
  }

  static {
    isManagedBuffer = (value) => typeof value === 'object' && value !== null && #advisedHostNuma in value;
  }
}

/** @internal The kind of ManagedBuffers: what ManagedMemoryResource passes to `allocatedBuffer`. */
export const managedBufferKind: BufferKind = defineBufferKind('ManagedBuffer', ManagedBuffer as never, false);

// The brand of the managed members (one private-field test of the class's own field): a Proxy
// of a ManagedBuffer, or an object inheriting from one, gets a TypeError naming the member.
guardMembers(ManagedBuffer, (value) => isManagedBuffer(value));
