import { describe, expect, it } from 'vitest';
import { bool, float32, float64, int32, int64, isKernelScalar, uint32, uint64 } from './scalar-arguments.js';

describe('scalar wrappers', () => {
  it('keep the value in its C type, 64-bit integers as bigints', () => {
    expect(int32(-2).value).toBe(-2);
    expect(uint32(4294967295).value).toBe(4294967295);
    expect(int64(5).value).toBe(5n);
    expect(uint64(2n ** 64n - 1n).value).toBe(2n ** 64n - 1n);
    expect(float32(0.1).kind).toBe('float32');
    expect(float64(Number.NaN).value).toBeNaN();
    expect(bool(false).value).toBe(false);
    expect(isKernelScalar(int32(1))).toBe(true);
    expect(isKernelScalar({ kind: 'int32', value: 1 })).toBe(false);
    expect(Object.isFrozen(uint32(1))).toBe(true);
  });

  it('refuse values outside their type with RangeError, other kinds with TypeError', () => {
    expect(() => int32(2 ** 31)).toThrow(RangeError);
    expect(() => int32(-(2 ** 31) - 1)).toThrow(RangeError);
    expect(() => uint32(-1)).toThrow(RangeError);
    expect(() => uint32(1.5)).toThrow(RangeError);
    expect(() => int64(2 ** 60)).toThrow(/pass a bigint/);
    expect(() => uint64(-1n)).toThrow(RangeError);
    expect(() => int64(2n ** 63n)).toThrow(RangeError);
    expect(() => int32('1' as never)).toThrow(TypeError);
    expect(() => float32(1n as never)).toThrow(TypeError);
    expect(() => bool(1 as never)).toThrow(TypeError);
  });
});
