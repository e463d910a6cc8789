// Argument checks for StridedLayout. Every transformation validates all of its input before
// building anything, so a bad call never leaves a half-made layout behind.
import { checkInteger, checkSize, describeValue } from '@cumem/core-types';

/** The largest number of dimensions a layout may have (as in DLPack / NumPy). */
export const MAX_DIMENSIONS = 64;

/** A shape: an array of non-negative safe integers (elements per axis). */
export function checkShape(value: unknown, name = 'shape'): number[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`${name} must be an array of non-negative integers, got ${describeValue(value)}`);
  }
  if (value.length > MAX_DIMENSIONS) {
    throw new RangeError(`${name} has ${value.length} dimensions, more than the ${MAX_DIMENSIONS} allowed`);
  }
  return value.map((extent, axis) => checkSize(extent, `${name}[${axis}]`));
}

/** A signed safe integer (a stride or index): TypeError for a non-number, RangeError for 1.5 or 2**53. */
export function checkSignedInteger(value: unknown, name: string): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be an integer number, got ${describeValue(value)}`);
  }
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`);
  return value;
}

/** Strides in elements, one per axis, or null for dense C order. */
export function checkStrides(value: unknown, ndim: number, name = 'strides'): number[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) {
    throw new TypeError(`${name} must be an array of integers or null, got ${describeValue(value)}`);
  }
  if (value.length !== ndim) {
    throw new RangeError(`${name} has ${value.length} entries but the shape has ${ndim} dimensions`);
  }
  return value.map((stride, axis) => checkSignedInteger(stride, `${name}[${axis}]`));
}

/** Bytes per element: a power of two (1, 2, 4, 8, 16, ...). */
export function checkItemsize(value: unknown, name = 'itemsize'): number {
  const itemsize = checkSize(value, name);
  if (itemsize === 0 || (itemsize & (itemsize - 1)) !== 0 || itemsize > 2 ** 30) {
    throw new RangeError(`${name} must be a power of two between 1 and 2**30 bytes, got ${itemsize}`);
  }
  return itemsize;
}

/**
 * A permutation of `0..ndim-1`.
 * @throws TypeError when not an array of integers; RangeError when the length, a value or a repeat is wrong.
 */
export function checkPermutation(value: unknown, ndim: number, name = 'axes'): number[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`${name} must be an array of axis numbers, got ${describeValue(value)}`);
  }
  const axes = value.map((axis, i) => checkInteger(axis, `${name}[${i}]`));
  if (axes.length !== ndim) {
    throw new RangeError(`${name} must list each of the ${ndim} axes once, got ${axes.length} entries`);
  }
  const seen = new Array<boolean>(ndim).fill(false);
  for (const axis of axes) {
    if (axis < 0 || axis >= ndim)
      throw new RangeError(`${name} entry ${axis} is not an axis in [0, ${ndim})`);
    if (seen[axis]) throw new RangeError(`${name} names axis ${axis} twice: not a permutation`);
    seen[axis] = true;
  }
  return axes;
}

/** An axis number; negative counts from the end (-1 = last). */
export function normalizeAxis(value: unknown, ndim: number, name = 'axis'): number {
  const axis = checkInteger(value, name);
  const normalized = axis < 0 ? axis + ndim : axis;
  if (normalized < 0 || normalized >= ndim) {
    throw new RangeError(`${name} ${axis} is out of range for a layout of ${ndim} dimensions`);
  }
  return normalized;
}

/** Product of extents, refusing results past 2**53 - 1. */
export function volumeOf(shape: readonly number[]): number {
  let volume = 1;
  for (const extent of shape) volume *= extent;
  if (!Number.isSafeInteger(volume))
    throw new RangeError(`shape [${shape.join(', ')}] has too many elements`);
  return volume;
}

/** Strides of a dense layout whose axes, from slowest to fastest, are `order` (a permutation). */
export function denseStrides(shape: readonly number[], order: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(0);
  let stride = 1;
  for (let i = order.length - 1; i >= 0; i--) {
    const axis = order[i]!;
    strides[axis] = stride;
    stride *= Math.max(shape[axis]!, 1);
  }
  return strides;
}

/** Axis order for `'C'`, `'F'` or an explicit permutation (slowest axis first, stride-1 axis last). */
export function orderToAxes(order: unknown, ndim: number, name = 'order'): number[] {
  if (order === 'C') return Array.from({ length: ndim }, (_, i) => i);
  if (order === 'F') return Array.from({ length: ndim }, (_, i) => ndim - 1 - i);
  if (typeof order === 'string') {
    throw new RangeError(
      `${name} must be 'C', 'F' or a permutation of the axes, got ${JSON.stringify(order)}`,
    );
  }
  return checkPermutation(order, ndim, name);
}
