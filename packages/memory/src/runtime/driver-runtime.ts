// Per-driver state that every call goes through: primary contexts (retained once per device
// and never released, as cuda.core does), which one is current, and a few cached facts.
import { CudaStateError, type Driver, type DriverCapabilities, type DriverHandle } from '@cumem/core-types';
import { currentDriver } from './driver-selection.js';

// Which (runtime, device) this thread last made current. The CUDA current context is per OS
// thread and each worker has its own copy of this module, so a JS variable tracks it exactly
// as long as nothing outside cumem calls cuCtxSetCurrent; one comparison replaces a driver call.
let boundRuntime: DriverRuntime | undefined;
let boundOrdinal = -1;

/**
 * What the runtime itself keeps (the folders above keep their own per-runtime state in tables
 * of their own, per-runtime-state.ts). Reachable only through {@link runtimeState}, which no
 * entry point of the package exports: a program that reaches a runtime (a stream's or buffer's
 * `runtime`, left out of the type declarations) finds a frozen object holding the driver and
 * nothing it could use to hand the driver a stream, context or range cumem never made.
 */
export interface RuntimeState {
  /** The driver's capabilities, read once. */
  capabilities: DriverCapabilities | undefined;
  /** `cuDeviceGetCount`, asked once (-1 until then). */
  deviceCount: number;
  /** Each device's primary context, retained on first use and never released (as cuda.core). */
  readonly contexts: DriverHandle[];
  /** The device used when none is given (`setCurrentDevice`), default 0. */
  currentDevice: number;
}

let stateOf: (runtime: DriverRuntime) => RuntimeState;

/** The driver together with the state cumem keeps for it. One per driver object; frozen. */
export class DriverRuntime {
  readonly #state: RuntimeState;

  static {
    stateOf = (runtime) => runtime.#state;
  }

  constructor(readonly driver: Driver) {
    this.#state = {
      capabilities: undefined,
      deviceCount: -1,
      contexts: [],
      currentDevice: 0,
    };
    Object.freeze(this);
  }

  get capabilities(): DriverCapabilities {
    const state = this.#state;
    if (state.capabilities === undefined) state.capabilities = this.driver.capabilities;
    return state.capabilities;
  }

  /** `cuDeviceGetCount`, asked once. */
  get deviceCount(): number {
    const state = this.#state;
    if (state.deviceCount < 0) state.deviceCount = this.driver.deviceGetCount();
    return state.deviceCount;
  }

  /** The device used when none is given (`setCurrentDevice`, which changes it), default 0. */
  get currentDevice(): number {
    return this.#state.currentDevice;
  }

  /** Makes device `ordinal`'s primary context current, retaining it the first time. Hot path. */
  makeCurrent(ordinal: number): void {
    if (boundRuntime === this && boundOrdinal === ordinal) return;
    this.bind(ordinal);
  }

  /** The primary context of device `ordinal`, retained the first time (it does not become current). */
  context(ordinal: number): DriverHandle {
    const contexts = this.#state.contexts;
    let context = contexts[ordinal];
    if (context === undefined) {
      context = this.driver.primaryContextRetain(ordinal);
      contexts[ordinal] = context;
    }
    return context;
  }

  /** Makes the device's context current unconditionally (after code outside cumem changed it). */
  bind(ordinal: number): void {
    this.driver.contextSetCurrent(this.context(ordinal));
    boundRuntime = this;
    boundOrdinal = ordinal;
  }
}

/**
 * Objects of two drivers do not mix: `other` (a buffer, stream or event) used with an object of
 * `own` is refused when it belongs to another driver, before its pointer or handle reaches
 * `own`'s driver (another libcuda's mean nothing to it). `what` names `other`, `ownName` the object.
 * @throws CudaStateError naming both drivers.
 */
export function checkSameDriver(
  own: DriverRuntime,
  other: DriverRuntime,
  what: string,
  ownName: string,
): void {
  if (other !== own) throw foreignDriverError(own, other, what, ownName);
}

/** The error of {@link checkSameDriver}, for callers that test inline (hot paths) and throw it. */
export function foreignDriverError(
  own: DriverRuntime,
  other: DriverRuntime,
  what: string,
  ownName: string,
): CudaStateError {
  return new CudaStateError(
    `${what} belongs to driver ${other.driver.name}, ${ownName} to ${own.driver.name}`,
  );
}

/** The state of `runtime`: for this package's modules only (no entry point exports it). */
export function runtimeState(runtime: DriverRuntime): RuntimeState {
  return stateOf(runtime);
}

let active: DriverRuntime | undefined;
// One runtime per driver object, so switching drivers back and forth keeps each one's contexts,
// default streams and objects working together.
const runtimes = new WeakMap<Driver, DriverRuntime>();

/** The runtime of {@link currentDriver}. */
export function activeRuntime(): DriverRuntime {
  const driver = currentDriver();
  if (active !== undefined && active.driver === driver) return active;
  let runtime = runtimes.get(driver);
  if (runtime === undefined) {
    runtime = new DriverRuntime(driver);
    runtimes.set(driver, runtime);
  }
  active = runtime;
  return runtime;
}
