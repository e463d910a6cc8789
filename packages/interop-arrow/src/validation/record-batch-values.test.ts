import { describe, expect, it } from 'vitest';
import {
  checkDenseOffsets,
  checkDictionaryIndices,
  checkOffsets,
  checkUnionTypeIds,
  checkValidity,
  checkViews,
} from './record-batch-values.js';

const int32s = (...values: number[]) => new DataView(Int32Array.from(values).buffer);

describe('per-value checks of a record batch', () => {
  it('offsets: non-negative, non-decreasing, 32 and 64 bits', () => {
    expect(checkOffsets(int32s(0, 2, 2, 5), 3, 4, 'x')).toBe(5);
    expect(checkOffsets(int32s(3, 3), 1, 4, 'x')).toBe(3);
    expect(() => checkOffsets(int32s(0, 5, 4), 2, 4, 'x')).toThrow(/x offset 2 is 4, after 5/);
    expect(() => checkOffsets(int32s(-1, 0), 1, 4, 'x')).toThrow(/start at -1/);
    const large = new DataView(BigInt64Array.from([0n, 2n ** 60n]).buffer);
    expect(() => checkOffsets(large, 1, 8, 'x')).toThrow(RangeError);
    expect(checkOffsets(new DataView(BigInt64Array.from([1n, 4n]).buffer), 1, 8, 'x')).toBe(4);
  });

  it('validity: the bitmap counts exactly the null count', () => {
    const valid = checkValidity(Uint8Array.of(0b101), 3, 1, 'x');
    expect([0, 1, 2].map(valid)).toEqual([true, false, true]);
    expect(() => checkValidity(Uint8Array.of(0b111), 3, 1, 'x')).toThrow(/0 nulls, its null count says 1/);
    expect(checkValidity(null, 3, 0, 'x')(2)).toBe(true);
  });

  it('union type ids and dense offsets', () => {
    const children = checkUnionTypeIds(Uint8Array.of(5, 7, 5), 3, [5, 7], 'u');
    expect(Array.from(children)).toEqual([0, 1, 0]);
    expect(() => checkUnionTypeIds(Uint8Array.of(5, 6), 2, [5, 7], 'u')).toThrow(/type id 6/);
    checkDenseOffsets(int32s(0, 0, 1), children, [2, 1], 'u');
    expect(() => checkDenseOffsets(int32s(0, 1, 1), children, [2, 1], 'u')).toThrow(/value 1 of child 1/);
    expect(() => checkDenseOffsets(int32s(-1, 0, 1), children, [2, 1], 'u')).toThrow(RangeError);
  });

  it('dictionary indices of valid slots, signed and unsigned', () => {
    const all = () => true;
    checkDictionaryIndices(int32s(0, 2, 1), 3, 32, true, all, 3, 'd');
    expect(() => checkDictionaryIndices(int32s(0, 3), 2, 32, true, all, 3, 'd')).toThrow(/index 3/);
    expect(() => checkDictionaryIndices(int32s(-1), 1, 32, true, all, 3, 'd')).toThrow(/index -1/);
    // A null slot's index is not read.
    checkDictionaryIndices(int32s(0, 99), 2, 32, true, (i) => i === 0, 3, 'd');
    checkDictionaryIndices(new DataView(Uint8Array.of(255).buffer), 1, 8, false, all, 256, 'd');
    expect(() =>
      checkDictionaryIndices(new DataView(Uint8Array.of(255).buffer), 1, 8, true, all, 256, 'd'),
    ).toThrow(/index -1/);
  });

  it('views: inline up to 12 bytes, else inside their data buffer', () => {
    const views = new DataView(new ArrayBuffer(32));
    views.setInt32(0, 5, true); // inline
    views.setInt32(16, 20, true);
    views.setInt32(24, 0, true);
    views.setInt32(28, 4, true);
    checkViews(views, 2, () => true, [24], 'v');
    expect(() => checkViews(views, 2, () => true, [23], 'v')).toThrow(
      /slot 1 views \[4, 4\+20\) of data buffer 0/,
    );
    expect(() => checkViews(views, 2, () => true, [], 'v')).toThrow(RangeError);
    views.setInt32(0, -1, true);
    expect(() => checkViews(views, 1, () => true, [], 'v')).toThrow(/-1 bytes/);
  });
});
