import { describe, expect, it } from 'vitest';
import { strictTypeError } from '../../test/support.js';
import { StridedLayout } from './strided-layout.js';

describe('StridedLayout construction', () => {
  it('defaults to dense C strides in elements', () => {
    const layout = new StridedLayout([2, 3, 4], null, 4);
    expect(layout.strides).toEqual([12, 4, 1]);
    expect(layout.ndim).toBe(3);
    expect(layout.offset).toBe(0);
    expect(layout.volume).toBe(24);
    expect(layout.isContiguousC).toBe(true);
    expect(layout.isContiguousF).toBe(false);
    expect(layout.isDense).toBe(true);
    expect(layout.requiredSizeInBytes()).toBe(96);
    expect(layout.stridesInBytes).toEqual([48, 16, 4]);
  });

  it('dense in C, F and an explicit order (as cuda.core)', () => {
    expect(StridedLayout.dense([5, 3, 7], 1, 'C').strides).toEqual([21, 7, 1]);
    expect(StridedLayout.dense([5, 3, 7], 1, 'F').strides).toEqual([1, 5, 15]);
    expect(StridedLayout.dense([5, 3, 7], 1, [2, 0, 1]).strides).toEqual([3, 1, 15]);
    expect(StridedLayout.dense([5, 3, 7], 1, 'F').isContiguousF).toBe(true);
  });

  it('keeps the offset and counts it in the required size', () => {
    const layout = new StridedLayout([2, 2], [4, 1], 2, { offset: 3 });
    expect(layout.offset).toBe(3);
    expect(layout.isDense).toBe(false);
    expect(layout.isContiguousAny).toBe(false);
    expect(layout.requiredSizeInBytes()).toBe((3 + 4 + 1 + 1) * 2);
  });

  it('handles 0-d, empty and 1-element layouts', () => {
    const scalar = new StridedLayout([], null, 8);
    expect(scalar.volume).toBe(1);
    expect(scalar.requiredSizeInBytes()).toBe(8);
    expect(scalar.isContiguousC && scalar.isContiguousF).toBe(true);
    const empty = new StridedLayout([3, 0], null, 4);
    expect(empty.volume).toBe(0);
    expect(empty.requiredSizeInBytes()).toBe(0);
    const one = new StridedLayout([1, 1], [100, 7], 4);
    expect(one.isContiguousC).toBe(true);
    expect(one.requiredSizeInBytes()).toBe(4);
  });

  it('rejects the wrong kinds with TypeError', () => {
    expect(() => new StridedLayout('3' as never, null, 4)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, '3'] as never, null, 4)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, 3], [1, '1'] as never, 4)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, 3], 5 as never, 4)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, 3], null, '4' as never)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, 3], null, 4, 7 as never)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, 3], null, 4, { offset: true } as never)).toThrow(strictTypeError);
  });

  it('rejects bad values with RangeError', () => {
    expect(() => new StridedLayout([-1], null, 4)).toThrow(RangeError);
    expect(() => new StridedLayout([1.5], null, 4)).toThrow(RangeError);
    expect(() => new StridedLayout([2, 3], [1], 4)).toThrow(RangeError);
    expect(() => new StridedLayout([2, 3], [1, 0.5], 4)).toThrow(RangeError);
    expect(() => new StridedLayout([2], null, 3)).toThrow(RangeError);
    expect(() => new StridedLayout([2], null, 0)).toThrow(RangeError);
    expect(() => new StridedLayout([2], null, 4, { offset: -1 })).toThrow(RangeError);
    expect(() => new StridedLayout([2 ** 30, 2 ** 30], null, 8)).toThrow(RangeError);
    expect(() => StridedLayout.dense([2, 3], 4, 'X' as never)).toThrow(RangeError);
    expect(() => StridedLayout.dense([2, 3], 4, [0, 0])).toThrow(RangeError);
  });

  it('requiredSizeInBytes refuses elements before the memory', () => {
    const reversed = new StridedLayout([4], [-1], 4);
    expect(() => reversed.requiredSizeInBytes()).toThrow(RangeError);
    expect(new StridedLayout([4], [-1], 4, { offset: 3 }).requiredSizeInBytes()).toBe(16);
  });
});

describe('StridedLayout transformations', () => {
  it('permuted moves shape and strides, and validates the permutation', () => {
    const layout = StridedLayout.dense([3, 4, 5], 1);
    const permuted = layout.permuted([1, 2, 0]);
    expect(permuted.shape).toEqual([4, 5, 3]);
    expect(permuted.strides).toEqual([5, 1, 20]);
    expect(permuted.isContiguousAny).toBe(true);
    expect(permuted.isContiguousC).toBe(false);
    expect(layout.permuted([2, 1, 0]).isContiguousF).toBe(true);
    expect(() => layout.permuted([0, 1])).toThrow(RangeError);
    expect(() => layout.permuted([0, 1, 1])).toThrow(RangeError);
    expect(() => layout.permuted([0, 1, 3])).toThrow(RangeError);
    expect(() => layout.permuted([0, 1, -1])).toThrow(RangeError);
    expect(() => layout.permuted('012' as never)).toThrow(strictTypeError);
    expect(() => layout.permuted([0, 1, '2'] as never)).toThrow(strictTypeError);
  });

  it('sliced follows Python slice rules', () => {
    const layout = StridedLayout.dense([5, 3, 7], 1);
    const sub = layout.sliced(null, null, [0, -1]);
    expect(sub.shape).toEqual([5, 3, 6]);
    expect(sub.isContiguousAny).toBe(false);
    const stepped = layout.sliced({ start: 1, step: 2 }, 2);
    expect(stepped.shape).toEqual([2, 7]);
    expect(stepped.strides).toEqual([42, 1]);
    expect(stepped.offset).toBe(21 + 14);
    const reversed = layout.sliced([null, null, -1]);
    expect(reversed.strides[0]).toBe(-21);
    expect(reversed.offset).toBe(84);
    expect(reversed.requiredSizeInBytes()).toBe(105);
    expect(layout.sliced([10, 20]).shape).toEqual([0, 3, 7]);
    expect(layout.sliced(-1, -1, -1).shape).toEqual([]);
    expect(layout.sliced(-1, -1, -1).offset).toBe(104);
  });

  it('sliced rejects bad ranges', () => {
    const layout = StridedLayout.dense([5, 3], 4);
    expect(() => layout.sliced(null, null, null)).toThrow(RangeError);
    expect(() => layout.sliced(5)).toThrow(RangeError);
    expect(() => layout.sliced(-6)).toThrow(RangeError);
    expect(() => layout.sliced([0, 5, 0])).toThrow(RangeError);
    expect(() => layout.sliced({ step: 0 })).toThrow(RangeError);
    expect(() => layout.sliced(1.5)).toThrow(strictTypeError);
    expect(() => layout.sliced('1' as never)).toThrow(strictTypeError);
    expect(() => layout.sliced([0, '2'] as never)).toThrow(strictTypeError);
    expect(() => layout.sliced([0, 1, 2, 3] as never)).toThrow(RangeError);
  });

  it('toDense keeps the stride order by default and drops the offset', () => {
    const layout = StridedLayout.dense([4, 6], 4).permuted([1, 0]).sliced([1, 5]);
    const dense = layout.toDense();
    expect(dense.shape).toEqual([4, 4]);
    expect(dense.strides).toEqual([1, 4]);
    expect(dense.offset).toBe(0);
    expect(layout.toDense('C').strides).toEqual([4, 1]);
  });

  it('repacked splits and merges elements as cuda.core', () => {
    const layout = StridedLayout.dense([5, 4], 4);
    expect(layout.repacked(2).equals(StridedLayout.dense([5, 8], 2))).toBe(true);
    expect(layout.repacked(8).equals(StridedLayout.dense([5, 2], 8))).toBe(true);
    expect(layout.repacked(16).equals(StridedLayout.dense([5, 1], 16))).toBe(true);
    expect(layout.repacked(16, { keepDim: false }).equals(StridedLayout.dense([5], 16))).toBe(true);
    expect(layout.repacked(4)).toBe(layout);
    expect(() => layout.repacked(32)).toThrow(RangeError);
    expect(() => layout.repacked(3)).toThrow(RangeError);
    expect(() => layout.permuted([1, 0]).repacked(8)).toThrow(RangeError);
    expect(() => layout.repacked(8, { axis: 2 })).toThrow(RangeError);
    expect(() => layout.repacked(8, { axis: '0' } as never)).toThrow(strictTypeError);
    expect(() => new StridedLayout([2, 4], [4, 1], 4, { offset: 1 }).repacked(8)).toThrow(RangeError);
    expect(() => new StridedLayout([2, 4], [6, 1], 4).repacked(16)).toThrow(RangeError);
  });
});
