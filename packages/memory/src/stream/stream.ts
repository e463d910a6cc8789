import type { InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkBoolean,
  checkInteger,
  checkOptions,
  Device,
  type DriverHandle,
  describeValue,
  EventFlags,
  guardMembers,
  hex,
  inspectCustom,
  objectDescription,
  StreamFlags,
} from '@cumem/core-types';
import { type HostMemory, isHostMemory } from '../copy/host-memory.js';
import { checkDeviceKind, optionalDeviceOrdinal } from '../runtime/device-arguments.js';
import { activeRuntime, checkSameDriver, type DriverRuntime } from '../runtime/driver-runtime.js';
import { forgetFinalizer, registerFinalizer } from '../runtime/object-finalizer.js';
import { perRuntimeState } from '../runtime/per-runtime-state.js';
import { createEvent, Event } from './event.js';
import { HeldHostMemory } from './held-host-memory.js';
import { type KnownStream, knownStreamsOf } from './known-streams.js';
import { holdDuringWait, isWaitedOn } from './pending-waits.js';

/** Options for {@link Stream.create}. */
export interface StreamOptions {
  /** Do not synchronize with the legacy NULL stream. Default true. */
  readonly nonBlocking?: boolean;
  /** Priority; lower numbers run first. Default 0 (the lowest). Must lie in the device's range. */
  readonly priority?: number;
}

const streamToken = Symbol('cumem.stream');

/** A CUDA stream: an ordered queue of work on one device. */
export class Stream {
  #closed = false;
  /** close() came while a wait was in flight: the last wait to settle destroys the handle. */
  #destroyAfterWaits = false;
  /**
   * JS memory that queued copies use (created on the first hold). In a box the finalizer also
   * reaches, so a stream dropped without close() keeps it until its copies are done.
   */
  readonly #holdings: { held: HeldHostMemory | null } = { held: null };
  /** The stream among its runtime's known streams, which frees of dropped buffers wait on. */
  readonly #known: KnownStream;
  /** The stream's device, made once: every read of `stream.device` returns it. */
  readonly #device: Device;
  /** What the stream was created with: cumem makes every Stream, so it knows them. */
  readonly #priority: number;
  readonly #nonBlocking: boolean;

  /**
   * Not for use: get a Stream from {@link Stream.create} or {@link defaultStream}. Called
   * directly (`new Stream()`), it throws a TypeError naming those.
   */
  private constructor(
    token: symbol,
    /** @internal */ readonly runtime: DriverRuntime,
    /** @internal The `CUstream`. */ readonly streamHandle: DriverHandle,
    /** @internal */ readonly ordinal: number,
    /** @internal True for the per-device default stream, which `close()` leaves alone. */ readonly isDefault: boolean,
    priority: number,
    nonBlocking: boolean,
  ) {
    if (token !== streamToken) {
      throw new TypeError(
        'Stream has no public constructor: use Stream.create() or defaultStream() to get one',
      );
    }
    const knownStreams = knownStreamsOf(runtime);
    const known = knownStreams.add(streamHandle, ordinal);
    this.#known = known;
    this.#device = new Device(ordinal);
    this.#priority = priority;
    this.#nonBlocking = nonBlocking;
    if (!isDefault) {
      const holdings = this.#holdings;
      registerFinalizer(this, () => {
        // Dropped with copies of JS memory maybe still queued: that memory goes when they are done.
        if (holdings.held !== null && !holdings.held.isEmpty) runtime.driver.streamSynchronize(streamHandle);
        knownStreams.retire(known);
        runtime.driver.streamDestroy(streamHandle);
      });
    }
    // What the stream is (its CUstream, device and runtime) cannot be rewritten or shadowed by
    // an own property, and its state is private: `stream.streamHandle = x` would hand the
    // driver a stream it never made, where a bogus CUstream is a crash.
    Object.freeze(this);
  }

  /**
   * A new stream on `device` (default: the current device).
   * @throws TypeError for a bad device or option kind; RangeError for a priority outside the
   *   device's range (`cuCtxGetStreamPriorityRange`) or a device that does not exist.
   */
  static create(device?: Device | number, options?: StreamOptions): Stream {
    checkDeviceKind(device);
    const { nonBlocking = true, priority } = checkOptions(options, 'Stream options');
    checkBoolean(nonBlocking, 'nonBlocking');
    if (priority !== undefined) checkInteger(priority, 'priority');
    const runtime = activeRuntime();
    const ordinal = optionalDeviceOrdinal(runtime, device);
    runtime.makeCurrent(ordinal);
    if (priority !== undefined) {
      const { least, greatest } = runtime.driver.contextGetStreamPriorityRange();
      if (priority < greatest || priority > least) {
        throw new RangeError(
          `priority ${priority} is outside device ${ordinal}'s range [${greatest}, ${least}]`,
        );
      }
    }
    const flags = nonBlocking ? StreamFlags.NonBlocking : StreamFlags.Default;
    const handle = runtime.driver.streamCreate(flags, priority ?? 0);
    return new Stream(streamToken, runtime, handle, ordinal, false, priority ?? 0, nonBlocking);
  }

  /** The device the stream runs on (the same Device object at every read). */
  get device(): Device {
    return this.#device;
  }

  /** The priority it was created with (lower numbers run first; 0 for the default stream). cuda.core's `priority`. */
  get priority(): number {
    return this.#priority;
  }

  /**
   * False only for a stream created with `nonBlocking: false`, which synchronizes with the legacy
   * NULL stream; the default stream is non-blocking. cuda.core's `is_nonblocking`.
   */
  get isNonBlocking(): boolean {
    return this.#nonBlocking;
  }

  /** The `CUstream` handle. */
  get handle(): bigint {
    this.checkOpen();
    return this.streamHandle;
  }

  /** True after `close()` (never for a default stream). */
  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * @internal Whether `value` is a Stream (made by this class: not an imitation, a Proxy or an
   * object inheriting from one) that is open. One private-field read: the `{ stream }` check of
   * every allocate and close (stream-options.ts).
   */
  static isOpenStream(value: unknown): value is Stream {
    return Stream.isStream(value) && !value.#closed;
  }

  /**
   * Whether `value` is a Stream made by this package, open or closed: not an object inheriting
   * from a Stream, a Proxy of one or an object shaped like one. Check a stream argument with it
   * rather than `instanceof`, which those pass, and whose members then fail on the stream's
   * private state with an error that names neither the argument nor what it should be.
   */
  static isStream(value: unknown): value is Stream {
    return typeof value === 'object' && value !== null && #closed in value;
  }

  /** Blocks the thread until all work queued so far has finished. */
  sync(): void {
    this.checkOpen();
    this.runtime.driver.streamSynchronize(this.streamHandle);
    this.#holdings.held?.releaseAll();
  }

  /**
   * Resolves when all work queued so far has finished, keeping the event loop free. The stream
   * (and its `CUstream`) stays alive until then, even unreferenced or closed meanwhile.
   */
  async syncAsync(): Promise<void> {
    this.checkOpen();
    const mark = this.#holdings.held?.markWaitPoint();
    await holdDuringWait(this, this.runtime.driver.streamSynchronizeAsync(this.streamHandle), () =>
      this.destroyIfClosed(),
    );
    // Only what was queued before the wait is known to be done (nothing is held once closed).
    if (!this.#closed && mark !== undefined) this.#holdings.held?.releaseThrough(mark);
  }

  /**
   * Records `event` (default: a new timing-enabled event) at this point of the stream.
   * @returns the event.
   */
  record(event?: Event): Event {
    this.checkOpen();
    if (event !== undefined && !Event.isEvent(event)) {
      throw new TypeError(`event must be an Event, got ${describeValue(event)}`);
    }
    if (event !== undefined) checkSameDriver(this.runtime, event.runtime, 'the event', 'this Stream');
    const target = event ?? createEvent(this.runtime, this.ordinal, EventFlags.Default);
    this.runtime.driver.eventRecord(target.recordHandle(), this.streamHandle);
    return target;
  }

  /**
   * Makes later work on this stream wait (on the GPU; the CPU does not wait) for `eventOrStream`:
   * an event, or all work queued so far on a stream. A closed stream is accepted: the work it
   * queued before its close still runs, and is waited for through the event its close recorded,
   * so no ordering depends on the producer's Stream object still being open (DLPack exports and
   * array views order their consumer this way).
   * @throws TypeError for anything but an Event or a Stream; CudaStateError when this stream or
   *   the event is closed, or the other object belongs to another driver.
   */
  wait(eventOrStream: Event | Stream): void {
    this.checkOpen();
    if (Event.isEvent(eventOrStream)) {
      checkSameDriver(this.runtime, eventOrStream.runtime, 'the event', 'this Stream');
      this.runtime.driver.streamWaitEvent(this.streamHandle, eventOrStream.open());
      return;
    }
    if (!Stream.isStream(eventOrStream)) {
      throw new TypeError(`wait() takes an Event or a Stream, got ${describeValue(eventOrStream)}`);
    }
    checkSameDriver(this.runtime, eventOrStream.runtime, 'the stream', 'this Stream');
    if (eventOrStream === this) return;
    if (eventOrStream.#closed) {
      knownStreamsOf(this.runtime).waitForTail(this.streamHandle, eventOrStream.#known);
      this.runtime.makeCurrent(this.ordinal);
      return;
    }
    const marker = createEvent(this.runtime, eventOrStream.ordinal, EventFlags.DisableTiming);
    try {
      this.runtime.driver.eventRecord(marker.open(), eventOrStream.streamHandle);
      this.runtime.driver.streamWaitEvent(this.streamHandle, marker.open());
    } finally {
      // The driver keeps a recorded event alive until the wait is resolved.
      marker.close();
    }
  }

  /**
   * Destroys the stream (after pending `syncAsync()` waits settle); work already queued still
   * completes, and still orders what waits for it: `other.wait(thisStream)` (and a DLPack
   * export's `{ stream }`) waits on an event recorded at the close. A default stream
   * is left alone (it lives as long as its driver). Idempotent.
   */
  close(): void {
    if (this.#closed || this.isDefault) return;
    // JS memory still in flight must outlive the copies: wait for them before letting go.
    const held = this.#holdings.held;
    if (held !== null && !held.isEmpty) this.sync();
    // Work already queued still runs after the destroy: frees of dropped buffers wait for it.
    knownStreamsOf(this.runtime).retire(this.#known);
    this.#closed = true;
    forgetFinalizer(this);
    if (isWaitedOn(this)) this.#destroyAfterWaits = true;
    else this.runtime.driver.streamDestroy(this.streamHandle);
  }

  private destroyIfClosed(): void {
    if (!this.#destroyAfterWaits) return;
    this.#destroyAfterWaits = false;
    this.runtime.driver.streamDestroy(this.streamHandle);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('Stream', Stream.isStream, (stream) => ({
    device: stream.ordinal,
    handle: hex(stream.streamHandle),
    default: stream.isDefault,
    closed: stream.#closed,
  }));

  /** `Stream(device: 0, handle: 0x…, default: false, closed: false)`. */
  toString(): string {
    return Stream.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link Stream.toString}. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Stream.#description.inspect(this, depth, options, nodeInspect);
  }

  /** @internal CudaStateError when closed. */
  checkOpen(): void {
    if (this.#closed) throw CudaStateError.closed('Stream');
  }

  /**
   * Keeps JS memory referenced until the stream has passed the work queued so far, so that an
   * asynchronous copy to or from it (queued by you, through the driver) never sees it
   * collected. Released by `sync()` / `syncAsync()`, or as later holds find it done; `close()`
   * waits for held memory first. A cumem extension (not in cuda.core, where Python's buffer
   * protocol keeps memory alive); cumem's own copies already hold what they touch.
   * @throws TypeError for anything but an ArrayBufferView, ArrayBuffer or SharedArrayBuffer;
   *   CudaStateError when the stream is closed.
   */
  holdHostMemory(memory: HostMemory): void {
    if (!isHostMemory(memory)) {
      throw new TypeError(
        `memory must be an ArrayBufferView, ArrayBuffer or SharedArrayBuffer, got ${describeValue(memory)}`,
      );
    }
    this.checkOpen();
    this.holdChecked(memory);
  }

  /** @internal {@link holdHostMemory} without the checks, for cumem's own copies. */
  holdChecked(memory: HostMemory): void {
    const holdings = this.#holdings;
    holdings.held ??= new HeldHostMemory(this.runtime, this.ordinal, this.streamHandle);
    holdings.held.hold(memory);
  }
}

// Internal members too: one private-field test is all a guard costs.
guardMembers(Stream, Stream.isStream, [
  // Answer for any receiver: describing an imitation must not throw.
  'toString',
  inspectCustom,
]);

/** The private constructor, for this module's factories. */
type StreamConstructor = new (
  token: symbol,
  runtime: DriverRuntime,
  handle: DriverHandle,
  ordinal: number,
  isDefault: boolean,
  priority: number,
  nonBlocking: boolean,
) => Stream;

/** Each runtime's default stream per device, made on first use. */
const defaultStreamsOf = perRuntimeState((): Stream[] => []);

/** @internal The default stream of device `ordinal` in `runtime`, created on first use. */
export function runtimeDefaultStream(runtime: DriverRuntime, ordinal: number): Stream {
  const streams = defaultStreamsOf(runtime);
  let stream = streams[ordinal];
  if (stream === undefined) {
    runtime.makeCurrent(ordinal);
    // A real non-blocking stream, never the legacy NULL stream, so library work never
    // serializes with other code's NULL-stream work.
    const handle = runtime.driver.streamCreate(StreamFlags.NonBlocking, 0);
    stream = new (Stream as unknown as StreamConstructor)(
      streamToken,
      runtime,
      handle,
      ordinal,
      true,
      0,
      true,
    );
    streams[ordinal] = stream;
  }
  return stream;
}

/**
 * The per-device stream cumem uses when a call gets no `stream`: a real non-blocking stream
 * (never the legacy NULL stream), one per device, created on first use; `close()` leaves it open.
 * @param device default: the current device.
 */
export function defaultStream(device?: Device | number): Stream {
  checkDeviceKind(device);
  const runtime = activeRuntime();
  return runtimeDefaultStream(runtime, optionalDeviceOrdinal(runtime, device));
}
