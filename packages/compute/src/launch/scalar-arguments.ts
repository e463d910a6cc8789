// Typed scalar kernel arguments. A kernel parameter has a C type the JS number does not carry
// (int, unsigned, float, double...), and guessing it would pass the wrong bytes silently, so a
// scalar is always wrapped: `int32(5)`, `float32(0.5)`. A bigint stands for a 64-bit integer.
import { describeValue } from '@cumem/core-types';

/** The C type of a wrapped scalar. */
export type ScalarKind =
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'float32'
  | 'float64'
  | 'bool';

const scalarMarker = Symbol.for('@cumem/compute.KernelScalar');

/** A scalar kernel argument of a given C type; make one with {@link int32} and its siblings. */
export interface KernelScalar {
  readonly [scalarMarker]: true;
  /** The C type the argument is passed as. */
  readonly kind: ScalarKind;
  /** The value, already checked to fit `kind`. */
  readonly value: number | bigint | boolean;
}

/**
 * Bytes `kind` takes in the kernel's parameter buffer (also its alignment). Comparisons rather
 * than a table keyed by the kind: this runs for every scalar of every launch, and the lookup was
 * a visible share of the launch row in bench/.
 */
export function scalarSize(kind: ScalarKind): number {
  if (kind === 'int32' || kind === 'uint32' || kind === 'float32') return 4;
  if (kind === 'int64' || kind === 'uint64' || kind === 'float64') return 8;
  if (kind === 'int16' || kind === 'uint16') return 2;
  return 1;
}

/** True for a value made by one of the scalar wrappers (also of another copy of this package). */
export function isKernelScalar(value: unknown): value is KernelScalar {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[scalarMarker] === true
  );
}

function scalar(kind: ScalarKind, value: number | bigint | boolean): KernelScalar {
  return Object.freeze({ [scalarMarker]: true as const, kind, value });
}

function integer(kind: ScalarKind, value: unknown, low: bigint, high: bigint): KernelScalar {
  if (typeof value === 'number') {
    if (!Number.isInteger(value))
      throw new RangeError(`${kind}() needs an integer, got ${describeValue(value)}`);
    if (value < Number(low) || value > Number(high)) {
      throw new RangeError(`${kind}() needs an integer in [${low}, ${high}], got ${value}`);
    }
    // Beyond 2**53 a number is no longer exact: take 64-bit values as bigints then.
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`${kind}(${value}) is not exact as a number: pass a bigint`);
    }
    return scalar(kind, kind === 'int64' || kind === 'uint64' ? BigInt(value) : value);
  }
  if (typeof value === 'bigint') {
    if (value < low || value > high) {
      throw new RangeError(`${kind}() needs an integer in [${low}, ${high}], got ${value}n`);
    }
    return scalar(kind, kind === 'int64' || kind === 'uint64' ? value : Number(value));
  }
  throw new TypeError(`${kind}() needs a number or a bigint, got ${describeValue(value)}`);
}

/** An 8-bit signed integer argument (`signed char`, `int8_t`), from -128 to 127. */
export function int8(value: number | bigint): KernelScalar {
  return integer('int8', value, -(2n ** 7n), 2n ** 7n - 1n);
}
/** An 8-bit unsigned integer argument (`unsigned char`, `uint8_t`), from 0 to 255. */
export function uint8(value: number | bigint): KernelScalar {
  return integer('uint8', value, 0n, 2n ** 8n - 1n);
}
/** A 16-bit signed integer argument (`short`, `int16_t`), from -32768 to 32767. */
export function int16(value: number | bigint): KernelScalar {
  return integer('int16', value, -(2n ** 15n), 2n ** 15n - 1n);
}
/** A 16-bit unsigned integer argument (`unsigned short`, `uint16_t`), from 0 to 65535. */
export function uint16(value: number | bigint): KernelScalar {
  return integer('uint16', value, 0n, 2n ** 16n - 1n);
}
/** A 32-bit signed integer argument (`int`), from -2**31 to 2**31 - 1. */
export function int32(value: number | bigint): KernelScalar {
  return integer('int32', value, -(2n ** 31n), 2n ** 31n - 1n);
}
/** A 32-bit unsigned integer argument (`unsigned int`), from 0 to 2**32 - 1. */
export function uint32(value: number | bigint): KernelScalar {
  return integer('uint32', value, 0n, 2n ** 32n - 1n);
}
/** A 64-bit signed integer argument (`long long`); a number must be a safe integer. */
export function int64(value: number | bigint): KernelScalar {
  return integer('int64', value, -(2n ** 63n), 2n ** 63n - 1n);
}
/** A 64-bit unsigned integer argument (`unsigned long long`, `size_t`); a number must be a safe integer. */
export function uint64(value: number | bigint): KernelScalar {
  return integer('uint64', value, 0n, 2n ** 64n - 1n);
}

function real(kind: 'float32' | 'float64', value: unknown): KernelScalar {
  if (typeof value !== 'number') throw new TypeError(`${kind}() needs a number, got ${describeValue(value)}`);
  return scalar(kind, value);
}

/** A 32-bit float argument (`float`): the number rounded to single precision, as `Math.fround` does. */
export function float32(value: number): KernelScalar {
  return real('float32', value);
}
/** A 64-bit float argument (`double`). */
export function float64(value: number): KernelScalar {
  return real('float64', value);
}
/** A `bool` argument: one byte, 1 or 0. */
export function bool(value: boolean): KernelScalar {
  if (typeof value !== 'boolean') throw new TypeError(`bool() needs a boolean, got ${describeValue(value)}`);
  return scalar('bool', value);
}
