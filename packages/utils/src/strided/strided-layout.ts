import { checkOptions, checkSize, describeValue, guardMembers } from '@cumem/core-types';
import { type AxisSlice, resolveSlice } from './layout-slicing.js';
import {
  checkItemsize,
  checkPermutation,
  checkShape,
  checkSignedInteger,
  checkStrides,
  denseStrides,
  normalizeAxis,
  orderToAxes,
  volumeOf,
} from './layout-validation.js';

/** Axis order of a dense layout: `'C'` (last axis fastest), `'F'` (first axis fastest), or a permutation, slowest axis first. */
export type LayoutOrder = 'C' | 'F' | readonly number[];

/** Options of the {@link StridedLayout} constructor. */
export interface StridedLayoutOptions {
  /** Elements (not bytes) from the start of the memory to the element at index (0, ..., 0). Default 0. */
  readonly offset?: number;
}

/** Options of {@link StridedLayout.repacked}. */
export interface RepackOptions {
  /** The axis whose extent changes; negative counts from the end. Default -1 (the last). Its stride must be 1. */
  readonly axis?: number;
  /** When packing shrinks the axis to one element, keep it (true, default) or drop it. */
  readonly keepDim?: boolean;
}

const layoutMarker = Symbol.for('cumem.utils.StridedLayout');

/**
 * The shape, strides (in elements) and element size of an n-dimensional array, plus the
 * element offset of index (0, ..., 0): the layout part of cuda.core's `StridedLayout`.
 * Immutable; every transformation returns a new layout.
 *
 * Strides may be negative (a reversed slice) or zero (a broadcast axis).
 */
export class StridedLayout {
  readonly [layoutMarker] = true;
  // The brand isInstance tests: private, so neither inherited nor seen through a Proxy.
  readonly #checked = true;
  /** Elements per axis. */
  readonly shape: readonly number[];
  /** Elements (not bytes) between neighbours along each axis. */
  readonly strides: readonly number[];
  /** Bytes per element, a power of two. */
  readonly itemsize: number;
  /** Elements from the start of the memory to index (0, ..., 0). */
  readonly offset: number;

  /**
   * @param shape elements per axis (non-negative integers).
   * @param strides elements between neighbours per axis, or `null` for dense C order.
   * @param itemsize bytes per element, a power of two.
   * @param options `offset` in elements (default 0).
   * @throws TypeError for the wrong kind of argument; RangeError for a bad value or a strides/shape length mismatch.
   */
  constructor(
    shape: readonly number[],
    strides: readonly number[] | null,
    itemsize: number,
    options?: StridedLayoutOptions,
  ) {
    const checkedShape = checkShape(shape);
    const checkedStrides = checkStrides(strides, checkedShape.length);
    const checkedItemsize = checkItemsize(itemsize);
    const { offset = 0 } = checkOptions(options);
    const checkedOffset = checkSize(offset, 'offset');
    volumeOf(checkedShape);
    const finalStrides = checkedStrides ?? denseStrides(checkedShape, orderToAxes('C', checkedShape.length));
    this.shape = Object.freeze(checkedShape);
    this.strides = Object.freeze(finalStrides);
    this.itemsize = checkedItemsize;
    this.offset = checkedOffset;
    const bounds = this.offsetBounds;
    if (
      !Number.isSafeInteger(bounds.min * checkedItemsize) ||
      !Number.isSafeInteger((bounds.max + 1) * checkedItemsize)
    ) {
      throw new RangeError('layout spans more bytes than a safe integer can count');
    }
    Object.freeze(this);
  }

  /**
   * A dense layout: elements packed with no gaps, offset 0.
   * @param order `'C'` (default, last axis fastest), `'F'` (first axis fastest) or an axis permutation, slowest first.
   */
  static dense(shape: readonly number[], itemsize: number, order: LayoutOrder = 'C'): StridedLayout {
    const checkedShape = checkShape(shape);
    const axes = orderToAxes(order, checkedShape.length);
    return new StridedLayout(checkedShape, denseStrides(checkedShape, axes), itemsize);
  }

  /**
   * True for a StridedLayout this package made (and so checked): not an object shaped like one,
   * inheriting from one or a Proxy of one, whose strides and sizes would be whatever they claim.
   */
  static isInstance(value: unknown): value is StridedLayout {
    return typeof value === 'object' && value !== null && #checked in value;
  }

  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }

  /** Number of elements (product of the shape; 1 for a 0-dimensional layout). */
  get volume(): number {
    return volumeOf(this.shape);
  }

  /** Strides in bytes. */
  get stridesInBytes(): readonly number[] {
    return this.strides.map((stride) => stride * this.itemsize);
  }

  /**
   * Smallest and largest element offset (including {@link offset}) any index maps to.
   * For an empty layout (volume 0): `{ min: 0, max: -1 }`.
   */
  get offsetBounds(): { readonly min: number; readonly max: number } {
    let min = this.offset;
    let max = this.offset;
    for (let axis = 0; axis < this.shape.length; axis++) {
      const extent = this.shape[axis]!;
      if (extent === 0) return { min: 0, max: -1 };
      const span = (extent - 1) * this.strides[axis]!;
      if (span < 0) min += span;
      else max += span;
    }
    return { min, max };
  }

  /** Row-major contiguous: the last axis has stride 1 and each axis to its left spans the ones to its right. Axes of extent 1 are ignored; an empty layout is contiguous. The offset is not considered. */
  get isContiguousC(): boolean {
    return this.contiguousIn(orderToAxes('C', this.ndim));
  }

  /** Column-major contiguous (the mirror of {@link isContiguousC}). */
  get isContiguousF(): boolean {
    return this.contiguousIn(orderToAxes('F', this.ndim));
  }

  /** Contiguous in some axis order: the elements fill `[offset, offset + volume)` with no gap or repeat. */
  get isContiguousAny(): boolean {
    return this.contiguousIn(this.strideOrder());
  }

  /** Contiguous in some order and with offset 0: the elements fill exactly `[0, volume)`. */
  get isDense(): boolean {
    return this.offset === 0 && this.isContiguousAny;
  }

  /**
   * Bytes a memory block must have so that every element lies inside it: `(max offset + 1) * itemsize`;
   * 0 for an empty layout.
   * @throws RangeError when an element lies before the start of the memory (negative strides without enough offset).
   */
  requiredSizeInBytes(): number {
    const { min, max } = this.offsetBounds;
    if (max < min) return 0;
    if (min < 0) {
      throw new RangeError(
        `layout maps elements to offset ${min}, before the start of the memory: add an offset`,
      );
    }
    return (max + 1) * this.itemsize;
  }

  /**
   * A dense layout (offset 0) of the same shape and itemsize.
   * @param order `'K'` (default) keeps this layout's stride order; `'C'`, `'F'` or an axis permutation as in {@link StridedLayout.dense}.
   */
  toDense(order: LayoutOrder | 'K' = 'K'): StridedLayout {
    const axes = order === 'K' ? this.strideOrder() : orderToAxes(order, this.ndim);
    return new StridedLayout(this.shape, denseStrides(this.shape, axes), this.itemsize);
  }

  /**
   * The same axes in another order: axis `i` of the result is axis `axes[i]` of this layout.
   * @throws RangeError unless `axes` is a permutation of `0..ndim-1`.
   */
  permuted(axes: readonly number[]): StridedLayout {
    const order = checkPermutation(axes, this.ndim);
    return new StridedLayout(
      order.map((axis) => this.shape[axis]!),
      order.map((axis) => this.strides[axis]!),
      this.itemsize,
      { offset: this.offset },
    );
  }

  /**
   * A sub-array, with Python slice rules per axis from the first: an integer index drops its axis,
   * `null` keeps it whole, `{ start, stop, step }` or `[start, stop, step]` selects a range
   * (negative values count from the end; a negative step walks backwards). Axes not given stay whole.
   * @throws RangeError for more ranges than axes, an index out of range, or a zero step.
   */
  sliced(...ranges: AxisSlice[]): StridedLayout {
    if (ranges.length > this.ndim) {
      throw new RangeError(`sliced got ${ranges.length} ranges for a layout of ${this.ndim} dimensions`);
    }
    const shape: number[] = [];
    const strides: number[] = [];
    let offset = this.offset;
    for (let axis = 0; axis < this.ndim; axis++) {
      const stride = this.strides[axis]!;
      const slice = resolveSlice(ranges[axis], this.shape[axis]!, `ranges[${axis}]`);
      if (slice.count > 0) offset += slice.start * stride;
      if (slice.drop) continue;
      shape.push(slice.count);
      strides.push(stride * slice.step);
    }
    if (offset < 0) throw new RangeError(`the slice starts at element offset ${offset}, before the memory`);
    return new StridedLayout(shape, strides, this.itemsize, { offset });
  }

  /**
   * The same bytes seen with another element size (cuda.core `repacked`): a smaller itemsize
   * splits each element along `axis`, a larger one merges neighbours along it.
   * @throws RangeError when `axis` has stride != 1 or extent 0, or (packing) its extent, the other
   *   strides or the offset are not divisible by the ratio.
   */
  repacked(itemsize: number, options?: RepackOptions): StridedLayout {
    const newItemsize = checkItemsize(itemsize);
    const { axis = -1, keepDim = true } = checkOptions(options);
    if (typeof keepDim !== 'boolean')
      throw new TypeError(`keepDim must be a boolean, got ${describeValue(keepDim)}`);
    if (this.ndim === 0) throw new RangeError('a 0-dimensional layout cannot be repacked: it has no axis');
    const at = normalizeAxis(axis, this.ndim);
    if (newItemsize === this.itemsize) return this;
    if (this.shape[at] === 0) throw new RangeError(`axis ${at} has extent 0: nothing to repack`);
    if (this.strides[at] !== 1 && this.shape[at] !== 1) {
      throw new RangeError(`axis ${at} must have stride 1 to repack, it has stride ${this.strides[at]}`);
    }
    const shape = [...this.shape];
    const strides = [...this.strides];
    strides[at] = 1;
    if (newItemsize < this.itemsize) {
      const factor = this.itemsize / newItemsize;
      shape[at] = shape[at]! * factor;
      for (let i = 0; i < strides.length; i++) if (i !== at) strides[i] = strides[i]! * factor;
      return new StridedLayout(shape, strides, newItemsize, { offset: this.offset * factor });
    }
    const factor = newItemsize / this.itemsize;
    if (shape[at]! % factor !== 0) {
      throw new RangeError(
        `axis ${at} has ${shape[at]} elements, not divisible by ${factor} to pack into ${newItemsize}-byte items`,
      );
    }
    for (let i = 0; i < strides.length; i++) {
      if (i !== at && shape[i] !== 1 && strides[i]! % factor !== 0) {
        throw new RangeError(
          `stride ${strides[i]} of axis ${i} is not divisible by ${factor} to pack into ${newItemsize}-byte items`,
        );
      }
    }
    if (this.offset % factor !== 0) {
      throw new RangeError(
        `offset ${this.offset} is not divisible by ${factor} to pack into ${newItemsize}-byte items`,
      );
    }
    shape[at] = shape[at]! / factor;
    for (let i = 0; i < strides.length; i++) if (i !== at) strides[i] = Math.trunc(strides[i]! / factor);
    if (!keepDim && shape[at] === 1) {
      shape.splice(at, 1);
      strides.splice(at, 1);
    }
    return new StridedLayout(shape, strides, newItemsize, { offset: this.offset / factor });
  }

  /** Element offset (including {@link offset}) of one index. */
  offsetOf(index: readonly number[]): number {
    if (!Array.isArray(index) || index.length !== this.ndim) {
      throw new TypeError(`index must be an array of ${this.ndim} integers, got ${describeValue(index)}`);
    }
    for (let axis = 0; axis < this.ndim; axis++) {
      const at = checkSignedInteger(index[axis], `index[${axis}]`);
      if (at < 0 || at >= this.shape[axis]!) {
        throw new RangeError(`index[${axis}] is ${at}, outside [0, ${this.shape[axis]})`);
      }
    }
    let offset = this.offset;
    for (let axis = 0; axis < this.ndim; axis++) offset += index[axis]! * this.strides[axis]!;
    return offset;
  }

  /** Same shape, strides, itemsize and offset. */
  equals(other: StridedLayout): boolean {
    if (!StridedLayout.isInstance(other)) return false;
    return (
      this.itemsize === other.itemsize &&
      this.offset === other.offset &&
      this.ndim === other.ndim &&
      this.shape.every((extent, axis) => extent === other.shape[axis]) &&
      this.strides.every((stride, axis) => stride === other.strides[axis])
    );
  }

  toString(): string {
    const offset = this.offset ? `, offset=${this.offset}` : '';
    return `StridedLayout(shape=[${this.shape.join(', ')}], strides=[${this.strides.join(', ')}], itemsize=${this.itemsize}${offset})`;
  }

  /** Axes from the largest |stride| to the smallest; ties keep axis order. */
  private strideOrder(): number[] {
    const axes = Array.from({ length: this.ndim }, (_, i) => i);
    return axes.sort((a, b) => Math.abs(this.strides[b]!) - Math.abs(this.strides[a]!) || a - b);
  }

  private contiguousIn(order: readonly number[]): boolean {
    if (this.volume === 0) return true;
    let expected = 1;
    for (let i = order.length - 1; i >= 0; i--) {
      const axis = order[i]!;
      const extent = this.shape[axis]!;
      if (extent === 1) continue;
      if (this.strides[axis] !== expected) return false;
      expected *= extent;
    }
    return true;
  }
}

// One brand check in front of every public method and getter: a Proxy of a layout, or an object
// inheriting from one, could claim any shape and strides; it gets a TypeError naming the member.
// The private helpers run only on layouts already checked.
guardMembers(StridedLayout, StridedLayout.isInstance, ['strideOrder', 'contiguousIn']);
