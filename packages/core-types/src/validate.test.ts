import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkAddress,
  checkBoolean,
  checkInt32,
  checkInteger,
  checkOptions,
  checkSize,
  checkSizeAtMost,
  describeValue,
} from './validate.js';

describe('checkSize', () => {
  it('accepts non-negative safe integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => checkSize(n, 'size') === n),
    );
  });

  it.each([true, '4', null, undefined, 4n, {}])('rejects %s with TypeError', (value) => {
    expect(() => checkSize(value, 'size')).toThrow(TypeError);
  });

  it.each([Number.NaN, 1.5, -1, 2 ** 53, Number.POSITIVE_INFINITY])('rejects %s with RangeError', (value) => {
    expect(() => checkSize(value, 'size')).toThrow(RangeError);
  });

  it('names the argument in the message', () => {
    expect(() => checkSize(-1, 'offset')).toThrow(/offset/);
  });

  it('checkSizeAtMost bounds the value', () => {
    expect(checkSizeAtMost(4, 4, 'n')).toBe(4);
    expect(() => checkSizeAtMost(5, 4, 'n')).toThrow(RangeError);
  });
});

describe('checkInt32', () => {
  it('accepts integers from -2**31 to 2**32 - 1, as the N-API addon reads a C int', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }), (n) => checkInt32(n, 'flags') === n),
    );
  });

  it.each([true, '4', null, undefined, 4n, {}])('rejects %s with TypeError', (value) => {
    expect(() => checkInt32(value, 'flags')).toThrow(TypeError);
  });

  it.each([Number.NaN, 1.5, -(2 ** 31) - 1, 2 ** 32, Number.POSITIVE_INFINITY])(
    'rejects %s with RangeError',
    (value) => {
      expect(() => checkInt32(value, 'advice')).toThrow(/advice must be a 32-bit integer/);
    },
  );
});

describe('checkAddress', () => {
  it('returns bigints for numbers and bigints in range', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (b) => checkAddress(b, 'ptr') === b),
    );
    expect(checkAddress(4096, 'ptr')).toBe(4096n);
  });

  it('rejects out-of-range addresses with RangeError', () => {
    expect(() => checkAddress(-1n, 'ptr')).toThrow(RangeError);
    expect(() => checkAddress(1n << 64n, 'ptr')).toThrow(RangeError);
    expect(() => checkAddress(1.5, 'ptr')).toThrow(RangeError);
    expect(() => checkAddress(-1, 'ptr')).toThrow(RangeError);
  });

  it('rejects other kinds with TypeError', () => {
    expect(() => checkAddress('0x10', 'ptr')).toThrow(TypeError);
    expect(() => checkAddress(null, 'ptr')).toThrow(TypeError);
  });
});

describe('other checks', () => {
  it('checkInteger accepts negatives and rejects fractions', () => {
    expect(checkInteger(-3, 'priority')).toBe(-3);
    expect(() => checkInteger(0.5, 'priority')).toThrow(TypeError);
    expect(() => checkInteger(true, 'priority')).toThrow(TypeError);
  });

  it('checkBoolean', () => {
    expect(checkBoolean(false, 'flag')).toBe(false);
    expect(() => checkBoolean(0, 'flag')).toThrow(TypeError);
  });

  it('checkOptions', () => {
    expect(checkOptions(undefined)).toEqual({});
    const options = { stream: 1 };
    expect(checkOptions(options)).toBe(options);
    expect(() => checkOptions(null as unknown as object)).toThrow(TypeError);
    expect(() => checkOptions([] as unknown as object)).toThrow(TypeError);
    expect(() => checkOptions(3 as unknown as object)).toThrow(TypeError);
  });
});

describe('describeValue', () => {
  it('describes a revoked Proxy, object or function, without the engine error its reads throw', () => {
    const object = Proxy.revocable({}, {});
    const fn = Proxy.revocable(() => 0, {});
    object.revoke();
    fn.revoke();
    expect(describeValue(object.proxy)).toBe('an object');
    expect(describeValue(fn.proxy)).toBe('a function');
    expect(describeValue(new Map())).toBe('an object (Map)');
  });
});
