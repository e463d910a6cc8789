import type { Stream } from '@cumem/memory';
import { describe, expect, it } from 'vitest';
import { packArguments } from './argument-packing.js';
import {
  bool,
  float32,
  float64,
  int8,
  int16,
  int32,
  int64,
  isKernelScalar,
  scalarSize,
  uint8,
  uint16,
  uint32,
  uint64,
} from './scalar-arguments.js';

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

  it('take 8- and 16-bit integers in their ranges, as numbers of their own size', () => {
    expect([
      int8(-128).value,
      int8(127n).value,
      uint8(255).value,
      int16(-32768).value,
      uint16(65535).value,
    ]).toEqual([-128, 127, 255, -32768, 65535]);
    expect([int8(1), uint8(1), int16(1), uint16(1)].map((scalar) => scalarSize(scalar.kind))).toEqual([
      1, 1, 2, 2,
    ]);
    expect(() => int8(128)).toThrow(RangeError);
    expect(() => uint8(-1)).toThrow(RangeError);
    expect(() => int16(-32769n)).toThrow(RangeError);
    expect(() => uint16(65536)).toThrow(RangeError);
    expect(() => uint8(0.5)).toThrow(RangeError);
    expect(() => int16('1' as never)).toThrow(TypeError);
  });

  it('pack 8- and 16-bit integers little-endian at their natural alignment', () => {
    // No layout from the driver: each argument at the next multiple of its own size. Scalars
    // need no stream.
    const { bytes, offsets } = packArguments(
      'k',
      null,
      [int8(-2), int16(-3), uint8(200), uint16(0xbeef), int32(7)],
      undefined as unknown as Stream,
    );
    expect([...offsets]).toEqual([0, 2, 4, 6, 8]);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect([view.getInt8(0), view.getInt16(2, true), view.getUint8(4), view.getUint16(6, true)]).toEqual([
      -2, -3, 200, 0xbeef,
    ]);
    expect(view.getInt32(8, true)).toBe(7);
  });
});
