// Error identity is a Symbol.for() marker rather than `instanceof` alone: two copies of
// @cumem/core-types in one process (a nested install, a bundled dependency) each have their
// own classes, and `instanceof` across them is false. `X.isInstance(e)` works across copies.

const cumemErrorMarker = Symbol.for('cumem.error');

function markerFor(name: string): symbol {
  return Symbol.for(`cumem.error.${name}`);
}

function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * `value` as message text. The constructors are public, so they get arbitrary values: `String()`
 * throws its own TypeError for an object without a usable `toString` (found by the fuzz tests),
 * and an error's constructor must not fail that way.
 */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return `[unprintable ${typeof value}]`;
  }
}

const cudaErrorMarker = markerFor('CudaError');

/** Options for {@link CudaError}. */
export interface CudaErrorOptions {
  /** The CUresult value the driver returned. */
  readonly code: number;
  /** Its name from `cuGetErrorName`, e.g. `'CUDA_ERROR_INVALID_VALUE'`. */
  readonly codeName: string;
  /** The driver entry point that failed, e.g. `'cuMemAllocAsync'`. */
  readonly call: string;
  /** The driver's own description from `cuGetErrorString`, when it gave one. */
  readonly description?: string | undefined;
}

/** The driver returned an error. The message names the entry point, the code name and the driver's description. */
export class CudaError extends Error {
  readonly [cumemErrorMarker] = true;
  readonly [cudaErrorMarker] = true;
  /** CUresult value. */
  readonly code: number;
  /** `cuGetErrorName` of the code, e.g. `'CUDA_ERROR_OUT_OF_MEMORY'`. */
  readonly codeName: string;
  /** Driver entry point that returned the error, e.g. `'cuMemPoolCreate'`. */
  readonly call: string;
  /** `cuGetErrorString` of the code, or `''`. */
  readonly description: string;

  constructor(options: CudaErrorOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(
        `CudaError needs { code, codeName, call }, got ${options === null ? 'null' : typeof options}`,
      );
    }
    const description = options.description ?? '';
    super(
      `${text(options.call)} failed: ${text(options.codeName)} (${text(options.code)})${description ? `: ${text(description)}` : ''}`,
    );
    this.name = 'CudaError';
    this.code = options.code;
    this.codeName = options.codeName;
    this.call = options.call;
    this.description = description;
  }

  /** True for any CudaError, also one made by another copy of this package. */
  static isInstance(value: unknown): value is CudaError {
    return hasMarker(value, cudaErrorMarker);
  }
}

const unavailableMarker = markerFor('DriverUnavailableError');

/** Why a driver could not be used. */
export type DriverUnavailableReason =
  | 'no-adapter'
  | 'library-missing'
  | 'entry-point-missing'
  | 'no-device'
  | 'driver-too-old'
  | 'init-failed';

/** No adapter is installed, `libcuda.so.1` cannot be loaded, or there is no device. The message says how to fix it. */
export class DriverUnavailableError extends Error {
  readonly [cumemErrorMarker] = true;
  readonly [unavailableMarker] = true;
  readonly reason: DriverUnavailableReason;

  constructor(reason: DriverUnavailableReason, message: string, options?: { cause?: unknown }) {
    super(text(message), options);
    this.name = 'DriverUnavailableError';
    this.reason = reason;
  }

  static isInstance(value: unknown): value is DriverUnavailableError {
    return hasMarker(value, unavailableMarker);
  }
}

const stateMarker = markerFor('CudaStateError');

/** The object was closed, or it is used on the wrong device or context. Nothing reached the driver. */
export class CudaStateError extends Error {
  readonly [cumemErrorMarker] = true;
  readonly [stateMarker] = true;

  constructor(message: string) {
    super(text(message));
    this.name = 'CudaStateError';
  }

  /** The standard message for using `what` (e.g. `'Buffer'`) after its `close()`. */
  static closed(what: string): CudaStateError {
    return new CudaStateError(`${text(what)} is closed: it can no longer be used`);
  }

  static isInstance(value: unknown): value is CudaStateError {
    return hasMarker(value, stateMarker);
  }
}

const notSupportedMarker = markerFor('NotSupportedError');

/** The driver or device lacks the feature. The message names the driver version or device attribute needed. */
export class NotSupportedError extends Error {
  readonly [cumemErrorMarker] = true;
  readonly [notSupportedMarker] = true;

  constructor(message: string) {
    super(text(message));
    this.name = 'NotSupportedError';
  }

  static isInstance(value: unknown): value is NotSupportedError {
    return hasMarker(value, notSupportedMarker);
  }
}

/** True for any error class of cumem (CudaError, DriverUnavailableError, CudaStateError, NotSupportedError). */
export function isCumemError(value: unknown): boolean {
  return hasMarker(value, cumemErrorMarker);
}
