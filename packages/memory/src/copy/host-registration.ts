// registerHostMemory: page-locks JS memory in place (cuMemHostRegister) so copies from and to it
// run at pinned speed. The safety argument, in short (README, "Pinning JS memory in place"):
// - The memory must stay mapped while the driver has it registered: a registered range freed
//   and then reused by a new allocation would still be known to the driver, and its copies
//   would go to the old pages. So the ArrayBuffer is held strongly until unregistration.
// - Unregistration happens on close() / Symbol.dispose, or after the registration object is
//   garbage-collected. The finalizer's held value is what holds the ArrayBuffer, so the buffer
//   cannot be collected (and its memory freed) before the finalizer has unregistered it.
// - The ArrayBuffer is marked untransferable (node:worker_threads), so postMessage or
//   structuredClone cannot detach it and hand its memory to an owner that frees it early.
//   Other ways to detach it remain on some Node versions (transfer(), a BYOB read): cumem
//   unregisters a detached buffer's range before any copy or registration looks at it
//   (host-registration-table.ts).
// - Ranges sharing a page with a live registration are refused (CudaStateError naming both).
import type { InspectOptionsStylized, inspect } from 'node:util';
import { markAsUntransferable } from 'node:worker_threads';
import {
  checkInteger,
  checkOptions,
  type Device,
  describeValue,
  guardMembers,
  hex,
  inspectCustom,
  objectDescription,
  viewBytes,
} from '@cumem/core-types';
import { deviceOrdinal } from '../runtime/device-arguments.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import { forgetFinalizer, registerFinalizer } from '../runtime/object-finalizer.js';
import { asView } from './host-memory.js';
import {
  addRange,
  checkNoOverlap,
  forgetRange,
  type RegisteredRange,
  registeredCover,
  releaseDetachedRegistrations,
} from './host-registration-table.js';

/**
 * True when all of `view` lies in memory registered with {@link registerHostMemory}, so a copy
 * may take the pinned path. Registrations whose buffer was detached are unregistered first
 * (host-registration-table.ts): a detached or moved buffer is never reported registered.
 */
export function isRegisteredHostMemory(view: ArrayBufferView): boolean {
  return coverOf(view) === 'all';
}

/**
 * True when part, but not all, of `view` lies in memory registered with
 * {@link registerHostMemory}: such a view is neither pinned nor plain pageable memory for the
 * driver, and every copy of it takes the staged path (host-registration-table.ts says why).
 */
export function isPartlyRegisteredHostMemory(view: ArrayBufferView): boolean {
  return coverOf(view) === 'part';
}

function coverOf(view: ArrayBufferView): 'all' | 'part' | 'none' {
  if (!ArrayBuffer.isView(view))
    throw new TypeError(`view must be an ArrayBufferView, got ${describeValue(view)}`);
  releaseDetachedRegistrations();
  return registeredCover(viewBytes(view));
}

// ArrayBuffer's `resizable` and SharedArrayBuffer's `growable`, read through the intrinsic getters
// (an own `resizable: false` on a resizable buffer must not pass); undefined where the engine has none.
const resizableGetter = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'resizable')?.get;
const growableGetter =
  typeof SharedArrayBuffer === 'function'
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'growable')?.get
    : undefined;

function isResizable(buffer: ArrayBufferLike): boolean {
  const getter = buffer instanceof ArrayBuffer ? resizableGetter : growableGetter;
  try {
    return getter !== undefined && Reflect.apply(getter, buffer, []) === true;
  } catch {
    // The other kind of buffer (a prototype swapped by the program): ask the other getter.
    const other = getter === resizableGetter ? growableGetter : resizableGetter;
    return other !== undefined && Reflect.apply(other, buffer, []) === true;
  }
}

/** Options of {@link registerHostMemory}. */
export interface RegisterHostMemoryOptions {
  /** `MemHostRegisterFlags` bits (`Portable`, `DeviceMap`, `ReadOnly`). Default 0. */
  readonly flags?: number;
  /** Device whose context registers it (a Device or an ordinal that exists). Default: the current device. */
  readonly device?: Device | number;
}

/**
 * JS memory page-locked in place, from {@link registerHostMemory}. Close it (or use `using`)
 * to unpin; dropping it unpins it after garbage collection.
 */
const constructing = Symbol('HostRegistration');

export class HostRegistration {
  /** The address of the first registered byte. */
  readonly pointer: bigint;
  /** Registered bytes. */
  readonly byteLength: number;
  readonly #range: RegisteredRange;
  readonly #release: () => void;
  #closed = false;

  /**
   * Not for use: get a HostRegistration from {@link registerHostMemory}. Called directly, it
   * throws a TypeError naming it.
   */
  private constructor(
    token: symbol,
    runtime: DriverRuntime,
    ordinal: number,
    buffer: ArrayBufferLike,
    begin: number,
    byteLength: number,
    flags: number,
  ) {
    if (token !== constructing) {
      throw new TypeError(
        'HostRegistration has no public constructor: use registerHostMemory() to register host memory',
      );
    }
    runtime.makeCurrent(ordinal);
    const view = new Uint8Array(buffer, begin, byteLength);
    this.pointer = runtime.driver.memHostRegister(view, flags);
    this.byteLength = byteLength;
    const address = this.pointer;
    const range: RegisteredRange = {
      begin,
      end: begin + byteLength,
      address,
      addressEnd: address + BigInt(byteLength),
      live: true,
      detached: false,
    };
    this.#range = range;
    // `held` keeps the ArrayBuffer alive until the driver no longer has it registered.
    let held: ArrayBufferLike | undefined = buffer;
    this.#release = () => {
      if (held === undefined) return;
      forgetRange(held, range);
      held = undefined;
      runtime.makeCurrent(ordinal);
      runtime.driver.memHostUnregister(address);
    };
    addRange(buffer, range, this.#release);
    registerFinalizer(this, this.#release);
    Object.freeze(this);
  }

  /**
   * True once closed, or once cumem unregistered it because its ArrayBuffer was detached
   * (transferred, moved): the memory is then plain pageable memory again.
   */
  get closed(): boolean {
    return this.#closed || this.#range.detached;
  }

  /** Unpins the memory (`cuMemHostUnregister`). Closing twice does nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    forgetFinalizer(this);
    this.#release();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** @internal for tests: whether the range is still registered. */
  get live(): boolean {
    return this.#range.live;
  }

  static readonly #description = objectDescription(
    'HostRegistration',
    HostRegistration.#is,
    (registration) => ({
      pointer: hex(registration.pointer),
      byteLength: registration.byteLength,
      closed: registration.#closed || registration.#range.detached,
    }),
  );

  /** `HostRegistration(pointer: 0x…, byteLength: 4096, closed: false)`. */
  toString(): string {
    return HostRegistration.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link HostRegistration.toString}. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return HostRegistration.#description.inspect(this, depth, options, nodeInspect);
  }

  /** @internal The brand: one private-field test. */
  static #is(value: unknown): value is HostRegistration {
    return typeof value === 'object' && value !== null && #closed in value;
  }

  static {
    guardMembers(HostRegistration, (value) => HostRegistration.#is(value), ['toString', inspectCustom]);
  }
}

/**
 * Page-locks `memory` in place (`cuMemHostRegister`), so `Buffer.copyFrom` / `copyTo` and
 * everything built on them copy from and to it at pinned speed instead of staging it. The name
 * follows the driver and CuPy (`cupy.cuda.runtime.hostRegister`); PyTorch's `pin_memory()`
 * copies into new pinned memory instead, which is not what this does.
 *
 * Registering takes time in proportion to the size (bench/README.md): worth it for memory copied
 * more than once.
 * The registration keeps the ArrayBuffer alive and marks it untransferable (for good: Node has
 * no way to undo that). Should the buffer be detached all the same (`transfer()` on Node
 * versions that allow it, a BYOB stream read), cumem unregisters it before the next copy or
 * registration, and its copies become ordinary pageable copies; `closed` reads true then.
 * @throws TypeError when `memory` is not an ArrayBuffer, SharedArrayBuffer or view of one, or
 *   `options` is not an object;
 *   RangeError for an empty or resizable buffer, or a `device` that does not exist (before any
 *   driver call); CudaStateError for a range sharing a page with a live registration (both
 *   ranges named).
 */
export function registerHostMemory(
  memory: ArrayBufferView | ArrayBuffer | SharedArrayBuffer,
  options?: RegisterHostMemoryOptions,
): HostRegistration {
  if (!(ArrayBuffer.isView(memory) || memory instanceof ArrayBuffer || memory instanceof SharedArrayBuffer)) {
    throw new TypeError(
      `registerHostMemory: expected an ArrayBuffer or a view of one, got ${describeValue(memory)}`,
    );
  }
  // The memory as the engine counts it (host-memory.ts): a view's own byteOffset, byteLength or buffer
  // properties do not decide what is pinned.
  const bytes = asView(memory);
  const byteLength = bytes.byteLength;
  if (byteLength === 0) throw new RangeError('registerHostMemory: the memory is empty (0 bytes)');
  const buffer = bytes.buffer;
  const begin = bytes.byteOffset;
  // A resizable or growable buffer can move or shrink its memory under the registration.
  if (isResizable(buffer)) {
    throw new RangeError('registerHostMemory: a resizable or growable buffer cannot be pinned in place');
  }
  const { flags: givenFlags, device } = checkOptions(options);
  const flags = givenFlags === undefined ? 0 : checkInteger(givenFlags, 'options.flags');
  const runtime = activeRuntime();
  const ordinal =
    device === undefined ? runtime.currentDevice : deviceOrdinal(runtime, device, 'options.device');
  releaseDetachedRegistrations();
  checkNoOverlap(runtime.driver.addressOf(new Uint8Array(buffer, begin, byteLength)), byteLength);
  if (buffer instanceof ArrayBuffer) markAsUntransferable(buffer);
  const RegistrationClass = HostRegistration as unknown as new (
    ...parts: [symbol, DriverRuntime, number, ArrayBufferLike, number, number, number]
  ) => HostRegistration;
  return new RegistrationClass(constructing, runtime, ordinal, buffer, begin, byteLength, flags);
}
