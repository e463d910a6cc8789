// Argument checks shared by every layer, so that one rule gives one message everywhere and
// bad input is refused before anything reaches the driver. Following Node's own convention:
// the wrong kind of value is a TypeError, a number out of range (NaN, 1.5, -1, 2**53) a RangeError.

const maxAddress = (1n << 64n) - 1n;

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'object') {
    try {
      return `an object (${value.constructor?.name ?? 'Object'})`;
    } catch {
      // A revoked Proxy throws on every read: describing it must not.
      return 'an object';
    }
  }
  try {
    return `${typeof value} ${String(value)}`;
  } catch {
    return `a ${typeof value}`; // a function whose own toString was replaced by a non-function
  }
}

/**
 * A size, offset, count or ordinal: a non-negative safe integer.
 * @throws TypeError when `value` is not a number; RangeError when it is NaN, fractional, negative or above 2**53 - 1.
 */
export function checkSize(value: unknown, name: string): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a non-negative integer number, got ${describe(value)}`);
  }
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${describe(value)}`);
  }
  return value;
}

/** Like {@link checkSize}, and also at most `max`. */
export function checkSizeAtMost(value: unknown, max: number, name: string): number {
  const size = checkSize(value, name);
  if (size > max) throw new RangeError(`${name} is ${size}, more than the ${max} available`);
  return size;
}

/**
 * An address or opaque handle: a bigint in [0, 2**64) or a non-negative safe-integer number.
 * @returns the value as a bigint.
 */
export function checkAddress(value: unknown, name: string): bigint {
  if (typeof value === 'bigint') {
    if (value < 0n || value > maxAddress) {
      throw new RangeError(`${name} must be an address in [0, 2**64), got ${describe(value)}`);
    }
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${name} must be a non-negative safe integer or a bigint, got ${describe(value)}`);
    }
    return BigInt(value);
  }
  throw new TypeError(`${name} must be a bigint or a number address, got ${describe(value)}`);
}

/**
 * A C `int` or `unsigned int` argument (flags, an attribute, an advice, a location's type or id):
 * an integer from -2**31 to 2**32 - 1, the N-API addon's ReadInt (a value above 2**31 - 1 keeps
 * its bits as an unsigned int).
 * @throws TypeError when `value` is not a number; RangeError when it is NaN, fractional or out of that range.
 */
export function checkInt32(value: unknown, name: string): number {
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be an integer number, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < -2147483648 || value > 4294967295) {
    throw new RangeError(`${name} must be a 32-bit integer, got ${describe(value)}`);
  }
  return value;
}

/** An integer with no sign restriction (a priority, a NUMA id before its own range check). */
export function checkInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
  }
  return value;
}

/** A boolean flag. */
export function checkBoolean(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${describe(value)}`);
  return value;
}

/** An options argument: `undefined` or a plain object. */
export function checkOptions<T extends object>(value: T | undefined, name = 'options'): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${name} must be an object or undefined, got ${describe(value)}`);
  }
  return value;
}

/** Words for a value in an error message: `the string "4"`, `boolean true`, `an object (Foo)`. */
export { describe as describeValue };
