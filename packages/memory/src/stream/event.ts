import type { InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkBoolean,
  checkOptions,
  type Device,
  Device as DeviceClass,
  type DriverHandle,
  describeValue,
  EventFlags,
  guardMembers,
  hex,
  inspectCustom,
  objectDescription,
} from '@cumem/core-types';
import {
  checkEventHandleBytes,
  interprocessEventFlags,
  isInterprocess,
  markInterprocess,
  openedHandle,
} from '../interop/ipc/event-ipc.js';
import { checkDeviceKind, optionalDeviceOrdinal } from '../runtime/device-arguments.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import { forgetFinalizer, registerFinalizer } from '../runtime/object-finalizer.js';
import { holdDuringWait, isWaitedOn } from './pending-waits.js';

/** Options for {@link Event.create}. */
export interface EventOptions {
  /** Record timestamps so {@link Event.elapsedMs} works. Default true (costs a little per record). */
  readonly enableTiming?: boolean;
  /** `sync()` sleeps the thread instead of spinning. Default false. */
  readonly blockingSync?: boolean;
  /**
   * Shareable with other processes through {@link Event.ipcHandle} (`CU_EVENT_INTERPROCESS`).
   * Such an event cannot time, so `enableTiming` defaults to false and `true` is refused.
   * Default false.
   */
  readonly interprocess?: boolean;
}

const eventToken = Symbol('cumem.event');

/** A CUDA event: a marker in a stream's work, to wait on or time. Made by `stream.record()` or {@link Event.create}. */
export class Event {
  #closed = false;
  /** close() came while a wait was in flight: the last wait to settle destroys the handle. */
  #destroyAfterWaits = false;
  /** Set by `stream.record()`: before it, the event marks no point of any stream to time from. */
  #recorded = false;

  /**
   * Not for use: get an Event from {@link Event.create} or `stream.record()`. Called directly
   * (`new Event()`), it throws a TypeError naming those.
   */
  private constructor(
    token: symbol,
    /** @internal */ readonly runtime: DriverRuntime,
    private readonly eventHandle: DriverHandle,
    private readonly ordinal: number,
    /** The `CU_EVENT_*` flags it was made with. */ private readonly flags: number,
  ) {
    if (token !== eventToken) {
      throw new TypeError(
        'Event has no public constructor: use Event.create() or stream.record() to get one',
      );
    }
    registerFinalizer(this, () => runtime.driver.eventDestroy(eventHandle));
    // What the event is (its CUevent) cannot be rewritten or shadowed by an own property, and
    // its state is private: `event.eventHandle = x` or a defined `open` would hand the driver a
    // handle it never made, where a bogus CUevent is a crash.
    Object.freeze(this);
  }

  /**
   * A new event on `device` (default: the current device).
   * @throws TypeError / RangeError for a bad device or option.
   */
  static create(device?: Device | number, options?: EventOptions): Event {
    checkDeviceKind(device);
    const checked = checkOptions(options, 'Event options');
    const { interprocess = false, blockingSync = false } = checked;
    checkBoolean(interprocess, 'interprocess');
    const { enableTiming = !interprocess } = checked;
    checkBoolean(enableTiming, 'enableTiming');
    checkBoolean(blockingSync, 'blockingSync');
    if (interprocess && enableTiming) {
      throw new TypeError('an interprocess event cannot record timing: leave enableTiming unset or false');
    }
    const runtime = activeRuntime();
    const ordinal = optionalDeviceOrdinal(runtime, device);
    const flags =
      (interprocess ? interprocessEventFlags : enableTiming ? 0 : EventFlags.DisableTiming) |
      (blockingSync ? EventFlags.BlockingSync : 0);
    const event = createEvent(runtime, ordinal, flags);
    if (interprocess) markInterprocess(event);
    return event;
  }

  /**
   * Opens an event another process shared (its `ipcHandle`, 64 bytes: `cuIpcOpenEventHandle`),
   * on `device` (default: the current device). Wait on it (`stream.wait(event)`, `sync()`) to
   * order work after the other process's; `close()` releases only this process's reference.
   * A process cannot open its own events' handles.
   * @throws TypeError for a non-binary handle; RangeError when it is not 64 bytes.
   */
  static fromIpcHandle(handle: ArrayBufferView | ArrayBuffer, device?: Device | number): Event {
    // Copied once: the bytes opened are the bytes `ipcHandle` gives back.
    const bytes = checkEventHandleBytes(handle).slice();
    checkDeviceKind(device);
    const runtime = activeRuntime();
    const ordinal = optionalDeviceOrdinal(runtime, device);
    runtime.makeCurrent(ordinal);
    const handleOpened = runtime.driver.ipcOpenEventHandle(bytes);
    const event = new Event(eventToken, runtime, handleOpened, ordinal, interprocessEventFlags);
    markInterprocess(event, bytes);
    return event;
  }

  /**
   * The 64 bytes another process opens this event with (`cuIpcGetEventHandle`; in Python,
   * `Event.fromIpcHandle` here or CuPy's `cuda.runtime.ipcOpenEventHandle`). Record the event
   * on the producing stream before the consumer waits on it. An event opened with
   * {@link Event.fromIpcHandle} gives back the handle it was opened from (as cuda.core does).
   * @throws TypeError for an event not created with `{ interprocess: true }`; CudaStateError when closed.
   */
  get ipcHandle(): Uint8Array {
    const handle = this.open();
    if (!isInterprocess(this)) {
      throw new TypeError(
        'only an event created with Event.create(device, { interprocess: true }) has an ipcHandle',
      );
    }
    return openedHandle(this) ?? this.runtime.driver.ipcGetEventHandle(handle);
  }

  /**
   * True for an event that records no timestamps (`enableTiming: false`, and every interprocess
   * event): {@link Event.elapsedMs} refuses it. cuda.core's `is_timing_disabled`.
   */
  get isTimingDisabled(): boolean {
    return (this.flags & EventFlags.DisableTiming) !== 0;
  }

  /**
   * True for an event made with `blockingSync: true` (`CU_EVENT_BLOCKING_SYNC`): `sync()` sleeps
   * the thread instead of spinning. cuda.core's `is_sync_busy_waited` reports the same option.
   */
  get isBlockingSync(): boolean {
    return (this.flags & EventFlags.BlockingSync) !== 0;
  }

  /** True for an event created with `{ interprocess: true }` or opened with {@link Event.fromIpcHandle}. */
  get isInterprocess(): boolean {
    return isInterprocess(this);
  }

  /** The device the event belongs to. */
  get device(): Device {
    return new DeviceClass(this.ordinal);
  }

  /** The `CUevent` handle. */
  get handle(): bigint {
    return this.open();
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** True when all work before the event's record has completed (`cuEventQuery`). */
  get isDone(): boolean {
    return this.runtime.driver.eventQuery(this.open());
  }

  /** Blocks the thread until the event has completed. */
  sync(): void {
    this.runtime.driver.eventSynchronize(this.open());
  }

  /**
   * Resolves when the event has completed, keeping the event loop free. The event (and its
   * `CUevent`) stays alive until then, even unreferenced or closed meanwhile.
   */
  syncAsync(): Promise<void> {
    let wait: Promise<void>;
    try {
      wait = this.runtime.driver.eventSynchronizeAsync(this.open());
    } catch (error) {
      return Promise.reject(error);
    }
    return holdDuringWait(this, wait, () => this.destroyIfClosed());
  }

  /**
   * Milliseconds from this event to `later` (both recorded and completed, timing enabled).
   * @throws TypeError when `later` is not an Event; CudaStateError when either is closed, was
   *   made without timing ({@link Event.isTimingDisabled}) or was never recorded — before any
   *   driver call; CudaError `CUDA_ERROR_NOT_READY` while either is still pending.
   */
  elapsedMs(later: Event): number {
    if (!Event.isEvent(later)) throw new TypeError(`later must be an Event, got ${describeValue(later)}`);
    const start = this.open();
    const end = later.open();
    for (const [event, name] of [
      [this, 'this event'],
      [later, 'later'],
    ] as const) {
      if (event.isTimingDisabled) {
        throw new CudaStateError(
          `elapsedMs: ${name} records no timestamps (made with enableTiming: false, or interprocess)`,
        );
      }
      if (!event.#recorded) {
        throw new CudaStateError(`elapsedMs: ${name} was never recorded (stream.record(event) first)`);
      }
    }
    return this.runtime.driver.eventElapsedTime(start, end);
  }

  /** @internal The CUevent for `stream.record()`, which makes the event a point to time from. */
  recordHandle(): DriverHandle {
    const handle = this.open();
    this.#recorded = true;
    return handle;
  }

  /** Destroys the event (after pending `syncAsync()` waits settle). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    forgetFinalizer(this);
    if (isWaitedOn(this)) this.#destroyAfterWaits = true;
    else this.runtime.driver.eventDestroy(this.eventHandle);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private destroyIfClosed(): void {
    if (!this.#destroyAfterWaits) return;
    this.#destroyAfterWaits = false;
    this.runtime.driver.eventDestroy(this.eventHandle);
  }

  static readonly #description = objectDescription('Event', Event.isEvent, (event) => ({
    device: event.ordinal,
    handle: hex(event.eventHandle),
    interprocess: isInterprocess(event),
    closed: event.#closed,
  }));

  /** `Event(device: 0, handle: 0x…, interprocess: false, closed: false)`. */
  toString(): string {
    return Event.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link Event.toString}. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Event.#description.inspect(this, depth, options, nodeInspect);
  }

  /**
   * Whether `value` is an Event made by this package, open or closed: not an object inheriting
   * from an Event, a Proxy of one or an object shaped like one. Check an event argument with it
   * rather than `instanceof`, which those pass, and whose members then fail on the event's
   * private state with an error that names neither the argument nor what it should be.
   */
  static isEvent(value: unknown): value is Event {
    return typeof value === 'object' && value !== null && #closed in value;
  }

  /** @internal The handle, or CudaStateError when closed. */
  open(): DriverHandle {
    if (this.#closed) throw CudaStateError.closed('Event');
    return this.eventHandle;
  }
}

guardMembers(Event, Event.isEvent, [
  // Answer for any receiver: describing an imitation must not throw.
  'toString',
  inspectCustom,
]);

/** @internal A new event of `flags` on device `ordinal`. */
export function createEvent(runtime: DriverRuntime, ordinal: number, flags: number): Event {
  runtime.makeCurrent(ordinal);
  const EventClass = Event as unknown as new (
    token: symbol,
    runtime: DriverRuntime,
    handle: DriverHandle,
    ordinal: number,
    flags: number,
  ) => Event;
  return new EventClass(eventToken, runtime, runtime.driver.eventCreate(flags), ordinal, flags);
}
