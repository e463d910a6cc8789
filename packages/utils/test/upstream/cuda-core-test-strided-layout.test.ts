// cuda.core's tests of StridedLayout, translated case by case.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/test_strided_layout.py at commit
// b74ef2c8a7c72b7f946a90d6aaf06d9fd36f4d92 (helpers: tests/helpers/layout.py). Each case's title
// starts with the upstream test name.
//
// Upstream checks every layout against a NumPy array put through the same steps. Here a small
// model of a NumPy array (`ArrayModel`: shape, element strides, element offset from the first
// byte of the allocation) plays that part: NumPy's transpose, basic indexing with Python slice
// rules, contiguity flags and `view` with another itemsize, written from NumPy's documented
// behaviour. Upstream draws itemsizes and some permutations at random (seeded); here they are
// fixed: itemsizes cycle through 1, 2, 4, 8, 16, permutations are all of them up to 3 axes and
// three fixed ones beyond. Layout properties cumem does not have (`stride_order`, `is_unique`,
// `max_compatible_itemsize`) are left out of the checks; cumem's `offset` is cuda.core's
// `slice_offset`, and its errors are RangeError (bad value) or TypeError (wrong kind).
//
// Not ported (cumem's StridedLayout has no such method):
// - test_reshape (`reshaped`), test_flatten and test_flatten_together (`flattened`,
//   `flattened_axis_mask`), test_squeezed (`squeezed`), test_unsqueezed_layout (`unsqueezed`),
//   test_broadcast_layout (`broadcast_to`).
import { describe, expect, it } from 'vitest';
import { type AxisSlice, StridedLayout } from '../../src/index.js';

const ITEMSIZES = [1, 2, 4, 8, 16];
let itemsizeTurn = 0;
/** The next itemsize of the cycle (upstream: a seeded random choice). */
const nextItemsize = () => ITEMSIZES[itemsizeTurn++ % ITEMSIZES.length]!;

/** How upstream builds the dense layout: C, C with implicit (null) strides, F, or a permutation. */
type Order = 'C' | 'implicit C' | 'F' | readonly number[];
const DENSE_ORDERS: Order[] = ['C', 'implicit C', 'F'];

/** A NumPy array as far as the layout tests see it. Strides and offset in elements. */
interface ArrayModel {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
  readonly itemsize: number;
}

const product = (values: readonly number[]) => values.reduce((a, b) => a * b, 1);

/** All permutations of 0..n-1 up to 3 axes; beyond, three fixed ones (upstream: six random). */
function permutationsOf(n: number): number[][] {
  const identity = Array.from({ length: n }, (_, i) => i);
  if (n > 3) {
    return [
      [...identity].reverse(),
      [...identity.slice(1), 0],
      [...identity.filter((i) => i % 2 === 1), ...identity.filter((i) => i % 2 === 0)],
    ];
  }
  if (n === 0) return [[]];
  const result: number[][] = [];
  for (const first of identity) {
    for (const rest of permutationsOf(n - 1)) {
      result.push([first, ...rest.map((axis) => (axis >= first ? axis + 1 : axis))]);
    }
  }
  return result;
}

/** np.arange(...).reshape(shape, order) — or, for a permutation (slowest axis first), reshaped permuted and transposed back. */
function denseModel(shape: readonly number[], itemsize: number, order: Order): ArrayModel {
  const axes =
    order === 'C' || order === 'implicit C'
      ? shape.map((_, i) => i)
      : order === 'F'
        ? shape.map((_, i) => shape.length - 1 - i)
        : order;
  const strides = new Array<number>(shape.length).fill(0);
  let stride = 1;
  for (let k = axes.length - 1; k >= 0; k--) {
    strides[axes[k]!] = stride;
    stride *= shape[axes[k]!]!;
  }
  return { shape: [...shape], strides, offset: 0, itemsize };
}

/** The layout upstream builds for `order`: `new StridedLayout(shape, null, ...)` for implicit C. */
function denseLayout(shape: readonly number[], itemsize: number, order: Order): StridedLayout {
  if (order === 'implicit C') return new StridedLayout(shape, null, itemsize);
  return StridedLayout.dense(shape, itemsize, order);
}

/** np.transpose(a, perm). */
function transposeModel(model: ArrayModel, perm: readonly number[]): ArrayModel {
  return {
    ...model,
    shape: perm.map((axis) => model.shape[axis]!),
    strides: perm.map((axis) => model.strides[axis]!),
  };
}

/** Python's slice(start, stop, step).indices(length), then the element count. */
function sliceIndices(
  start: number | null,
  stop: number | null,
  step: number | null,
  length: number,
): { first: number; step: number; count: number } {
  const by = step ?? 1;
  const clamp = (value: number | null, fallback: number, low: number, high: number) => {
    if (value === null) return fallback;
    const at = value < 0 ? value + length : value;
    return Math.min(Math.max(at, low), high);
  };
  const first = by > 0 ? clamp(start, 0, 0, length) : clamp(start, length - 1, -1, length - 1);
  const end = by > 0 ? clamp(stop, length, 0, length) : clamp(stop, -1, -1, length - 1);
  const count =
    by > 0 ? Math.max(0, Math.ceil((end - first) / by)) : Math.max(0, Math.ceil((first - end) / -by));
  return { first, step: by, count };
}

/** a[slices] with NumPy's basic indexing (an integer drops its axis). */
function indexModel(model: ArrayModel, slices: readonly AxisSlice[]): ArrayModel {
  const shape: number[] = [];
  const strides: number[] = [];
  let offset = model.offset;
  model.shape.forEach((length, axis) => {
    const slice = slices[axis];
    const stride = model.strides[axis]!;
    if (typeof slice === 'number') {
      offset += (slice < 0 ? slice + length : slice) * stride;
    } else {
      const [start, stop, step] =
        slice === null || slice === undefined ? [null, null, null] : (slice as (number | null)[]);
      const { first, step: by, count } = sliceIndices(start ?? null, stop ?? null, step ?? null, length);
      if (count > 0) offset += first * stride;
      shape.push(count);
      strides.push(stride * by);
    }
  });
  return { ...model, shape, strides, offset };
}

/** a.view(dtype of `itemsize`) along `axis` (NumPy: the last axis after moving `axis` there): byte strides kept. */
function viewModel(model: ArrayModel, itemsize: number, axis: number): ArrayModel {
  const at = axis < 0 ? axis + model.shape.length : axis;
  const shape = [...model.shape];
  shape[at] = (shape[at]! * model.itemsize) / itemsize;
  const strides = model.strides.map((stride, i) => (i === at ? 1 : (stride * model.itemsize) / itemsize));
  return { shape, strides, offset: (model.offset * model.itemsize) / itemsize, itemsize };
}

/** NumPy's C_CONTIGUOUS / F_CONTIGUOUS flags (extent-1 axes ignored; empty arrays are both). */
function contiguousIn(model: ArrayModel, slowestFirst: readonly number[]): boolean {
  if (product(model.shape) === 0) return true;
  let expected = 1;
  for (let k = slowestFirst.length - 1; k >= 0; k--) {
    const axis = slowestFirst[k]!;
    if (model.shape[axis] === 1) continue;
    if (model.strides[axis] !== expected) return false;
    expected *= model.shape[axis]!;
  }
  return true;
}

function flagsOf(model: ArrayModel): { c: boolean; f: boolean; any: boolean } {
  const axes = model.shape.map((_, i) => i);
  const c = contiguousIn(model, axes);
  const f = contiguousIn(model, [...axes].reverse());
  // Upstream: C or F, or C-contiguous once transposed into the stride order (largest |stride| first).
  const byStride = [...axes].sort(
    (a, b) => Math.abs(model.strides[b]!) - Math.abs(model.strides[a]!) || a - b,
  );
  return { c, f, any: c || f || contiguousIn(model, byStride) };
}

/** Upstream's `_cmp_layout_and_array`, with `_cmp_slice_offset` (the offsets must agree too). */
function expectMatches(layout: StridedLayout, model: ArrayModel): void {
  expect(layout.ndim).toBe(model.shape.length);
  expect(layout.shape).toEqual(model.shape);
  expect(layout.volume).toBe(product(model.shape));
  expect(layout.itemsize).toBe(model.itemsize);
  expect(layout.offset).toBe(model.offset);
  const flags = flagsOf(model);
  expect(layout.isContiguousC).toBe(flags.c);
  expect(layout.isContiguousF).toBe(flags.f);
  expect(layout.isContiguousAny).toBe(flags.any);
  expect(layout.isDense).toBe(flags.any && model.offset === 0);
  // An empty array's strides say nothing (NumPy and cuda.core each pick their own).
  if (product(model.shape) > 0) {
    expect(layout.stridesInBytes).toEqual(model.strides.map((stride) => stride * model.itemsize));
  }
}

/** Upstream's `_cmp_layout_from_dense_vs_from_np`: a layout made from the array's strides agrees. */
function expectSameAsFromStrides(layout: StridedLayout, model: ArrayModel): void {
  const fromStrides = new StridedLayout(model.shape, model.strides, model.itemsize, { offset: model.offset });
  expect(fromStrides.shape).toEqual(layout.shape);
  expect(fromStrides.itemsize).toBe(layout.itemsize);
  expect(fromStrides.isContiguousC).toBe(layout.isContiguousC);
  expect(fromStrides.isContiguousF).toBe(layout.isContiguousF);
  expect(fromStrides.isContiguousAny).toBe(layout.isContiguousAny);
  expect(fromStrides.volume).toBe(layout.volume);
  if (layout.volume > 0) expect(fromStrides.strides).toEqual(layout.strides);
}

/** Upstream's `_check_envelope`: the offset bounds and the bytes needed, within the original array. */
function expectEnvelope(layout: StridedLayout, originalShape: readonly number[], itemsize: number): void {
  const originalVolume = product(originalShape);
  const { min, max } = layout.offsetBounds;
  if (layout.volume === 0) {
    expect([min, max]).toEqual([0, -1]);
  } else {
    expect(min).toBeGreaterThanOrEqual(0);
    expect(min).toBeLessThanOrEqual(max);
    expect(max).toBeLessThanOrEqual(originalVolume - 1);
    if (layout.isDense) {
      expect([min, max]).toEqual([0, layout.volume - 1]);
    } else {
      let low = layout.offset;
      let high = layout.offset;
      layout.shape.forEach((extent, axis) => {
        const span = layout.strides[axis]! * (extent - 1);
        if (span < 0) low += span;
        else high += span;
      });
      expect([min, max]).toEqual([low, high]);
    }
  }
  expect(layout.requiredSizeInBytes()).toBeGreaterThanOrEqual(0);
  expect(layout.requiredSizeInBytes()).toBeLessThanOrEqual(originalVolume * itemsize);
  expect(layout.requiredSizeInBytes()).toBe((max + 1) * layout.itemsize);
}

/** A 64-axis shape of mostly ones (upstream's long_shape, fixed): extents 2, 3 and 4 among them. */
const LONG_SHAPE = Array.from({ length: 64 }, (_, i) => (i === 5 ? 2 : i === 30 ? 3 : i === 61 ? 4 : 1));

const describeShape = (shape: readonly number[]) => (shape.length > 8 ? `${shape.length}-d` : `[${shape}]`);
const describeOrder = (order: Order) => (typeof order === 'string' ? order : `[${order}]`);

describe('cuda.core test_strided_layout.py', () => {
  for (const shape of [[], [5], [7, 9], [2, 3, 4]]) {
    for (const order of permutationsOf(shape.length)) {
      const itemsize = nextItemsize();
      it(`test_dense_with_permutation_as_stride_order: shape ${describeShape(shape)}, order [${order}], itemsize ${itemsize}`, () => {
        const layout = StridedLayout.dense(shape, itemsize, order);
        const model = denseModel(shape, itemsize, order);
        expectMatches(layout, model);
        expectSameAsFromStrides(layout, model);
        expectEnvelope(layout, shape, itemsize);
      });
    }
  }

  for (const shape of [[], [1], [2, 3], [5, 6, 7], [5, 1, 7], [5, 2, 3, 4], LONG_SHAPE]) {
    for (const perm of permutationsOf(shape.length).slice(0, 3)) {
      for (const order of DENSE_ORDERS) {
        const itemsize = nextItemsize();
        it(`test_permuted: shape ${describeShape(shape)}, ${describeOrder(order)}, perm ${describeShape(perm)}, itemsize ${itemsize}`, () => {
          const layout = denseLayout(shape, itemsize, order);
          const model = denseModel(shape, itemsize, order);
          expectMatches(layout, model);
          expectSameAsFromStrides(layout, model);
          const permuted = layout.permuted(perm);
          const transposed = transposeModel(model, perm);
          expectMatches(permuted, transposed);
          expectSameAsFromStrides(permuted, transposed);
          expectEnvelope(permuted, shape, itemsize);
        });
      }
    }
  }

  const badPermutations: [number[], number[], string][] = [
    [[], [5], 'wrong length'],
    [[1], [0, 0], 'wrong length'],
    [[2, 5, 3], [1, 0, 1], 'repeated axis'],
    [[5, 6, 7], [1, 3, 0], 'axis out of range'],
    [[5, 6, 7], [1, -2000, 0], 'axis out of range'],
  ];
  for (const [shape, perm, what] of badPermutations) {
    for (const order of DENSE_ORDERS) {
      it(`test_permuted_validation: shape [${shape}], ${order}, perm [${perm}]: ${what} is a RangeError`, () => {
        const layout = denseLayout(shape, nextItemsize(), order);
        expect(() => layout.permuted(perm)).toThrow(RangeError);
      });
    }
  }

  // Upstream's slice chains: each inner list is one `layout[...]` (one `sliced` call), applied in turn.
  const reversedAll: AxisSlice[] = LONG_SHAPE.map(() => [null, null, -1]);
  const sliceCases: [readonly number[], AxisSlice[][], 'RangeError' | 'TypeError' | null][] = [
    [[], [], null],
    [[12], [[null]], null],
    [[13], [[[null, null, -1]]], null],
    [[13], [[[null, null, -1]], [[null, null, -1]]], null],
    [[13], [[[null, null, -1]], [[1, -1]], [[null, null, -1]]], null],
    [[13], [[[2, -3]]], null],
    [[13], [[[2, -3, 2]]], null],
    [[13], [[[-3, 2, -2]]], null],
    [[13], [[[-3, 2, -2]], [[1, 3]]], null],
    [[3, 5], [[[null, 2]], [null, [3, null]]], null],
    [[3, 5], [[[5, 4]]], null],
    [[3, 5], [[null, [null, null, 0]]], 'RangeError'],
    [[3, 5], [[null, [null, -1], [null, 2]]], 'RangeError'],
    [[11, 12, 3], [[null, 0, [null, -1]]], null],
    [[11, 12, 3], [[0, 1, [null, -1]]], null],
    [[11, 12, 3, 5], [[0], [1]], null],
    [[11, 12, 3, 5], [[null, 1, [null, -1]]], null],
    [[11, 12, 3], [[0, 1, 2]], null],
    [[11, 12, 3], [[0, 1, 5]], 'RangeError'],
    [[11, 12, 3], [[-2]], null],
    [[11, 12, 3], [[-42]], 'RangeError'],
    [[11, 12, 3], [['abc' as never]], 'TypeError'],
    [LONG_SHAPE, [reversedAll], null],
  ];
  for (const [shape, chain, error] of sliceCases) {
    for (const order of DENSE_ORDERS) {
      const itemsize = nextItemsize();
      it(`test_slice: shape ${describeShape(shape)}, ${order}, slices ${shape.length > 8 ? '[::-1] on every axis' : JSON.stringify(chain)}${error ? `: ${error}` : ''}`, () => {
        let layout = denseLayout(shape, itemsize, order);
        let model = denseModel(shape, itemsize, order);
        expectMatches(layout, model);
        expectSameAsFromStrides(layout, model);
        if (error === null) {
          for (const slices of chain) {
            layout = layout.sliced(...slices);
            model = indexModel(model, slices);
            expectMatches(layout, model);
            expectSameAsFromStrides(layout, model);
            expectEnvelope(layout, shape, itemsize);
          }
        } else {
          const start = layout;
          expect(() => {
            let sliced = start;
            for (const slices of chain) sliced = sliced.sliced(...slices);
          }).toThrow(error === 'TypeError' ? TypeError : RangeError);
        }
      });
    }
  }

  // [shape, permutation, slices, order, itemsize, axis, new itemsize] (upstream's expected
  // max_compatible_itemsize is left out: cumem has no such query).
  const packCases: [number[], number[] | null, AxisSlice[] | null, Order, number, number, number][] = [
    [[12], null, null, 'C', 1, -1, 1],
    [[12], null, null, 'implicit C', 1, -1, 1],
    [[12], null, null, 'F', 1, 0, 1],
    [[12], null, null, 'C', 4, -1, 8],
    [[12], null, null, 'implicit C', 4, -1, 8],
    [[12], null, null, 'F', 4, 0, 8],
    [[16, 5, 4, 6], null, null, 'C', 2, -1, 4],
    [[16, 5, 4, 6], null, null, 'implicit C', 2, -1, 4],
    [[16, 5, 4, 6], null, null, 'F', 2, 0, 4],
    [[11, 5, 9], null, [null, null, [-1, null]], 'C', 2, 2, 2],
    [[11, 5, 9], null, [null, null, [-1, null]], 'implicit C', 2, 2, 2],
    [[11, 5, 9], null, [null, null, [-1, null]], 'F', 2, 0, 2],
    [
      [12, 3, 24],
      [1, 2, 0],
      [
        [null, null, -1],
        [20, null],
        [1, null],
      ],
      'C',
      2,
      1,
      8,
    ],
    [
      [12, 3, 24],
      [1, 2, 0],
      [
        [1, null],
        [null, null, -1],
        [10, null],
      ],
      'F',
      2,
      2,
      4,
    ],
    [[1, 3, ...new Array<number>(61).fill(1), 4], null, null, 'C', 2, -1, 8],
    [[1, 3, ...new Array<number>(61).fill(1), 4], null, null, 'implicit C', 2, -1, 4],
    [[4, 3, ...new Array<number>(61).fill(1), 3], null, null, 'F', 2, 0, 4],
  ];
  for (const [shape, perm, slices, order, itemsize, axis, newItemsize] of packCases) {
    it(`test_packed_unpacked: shape ${describeShape(shape)}, ${order}, perm ${perm ? `[${perm}]` : 'none'}, slices ${slices ? JSON.stringify(slices) : 'none'}, itemsize ${itemsize} -> ${newItemsize} along axis ${axis}`, () => {
      let layout = denseLayout(shape, itemsize, order);
      let model = denseModel(shape, itemsize, order);
      if (perm !== null) {
        layout = layout.permuted(perm);
        model = transposeModel(model, perm);
      }
      if (slices !== null) {
        layout = layout.sliced(...slices);
        model = indexModel(model, slices);
      }
      expectMatches(layout, model);
      expectSameAsFromStrides(layout, model);
      const packed = layout.repacked(newItemsize, { axis });
      const packedModel = viewModel(model, newItemsize, axis);
      expectMatches(packed, packedModel);
      expectSameAsFromStrides(packed, packedModel);
      expectEnvelope(packed, shape, itemsize);
      expect(packed.offset * (newItemsize / itemsize)).toBe(layout.offset);
      const unpacked = packed.repacked(itemsize, { axis });
      expectMatches(unpacked, model);
      expectSameAsFromStrides(unpacked, model);
      expectEnvelope(unpacked, shape, itemsize);
    });
  }

  const denseCases: [number[], number[] | null, AxisSlice[] | null][] = [
    [[], null, null],
    [[1], null, null],
    [[7], null, null],
    [[7], null, [[3, 6]]],
    [[7], null, [[null, null, -1]]],
    [[5, 11], null, null],
    [[5, 11], null, [[1, -1]]],
    [
      [5, 11],
      null,
      [
        [null, null, -1],
        [3, 10],
      ],
    ],
    [
      [5, 11],
      null,
      [
        [1, 4],
        [null, null, -1],
      ],
    ],
    [[5, 11], null, [[-1, null]]],
    [[3, 5, 7], [1, 0, 2], null],
  ];
  for (const [shape, perm, slices] of denseCases) {
    for (const order of DENSE_ORDERS) {
      const itemsize = nextItemsize();
      const targets: ('C' | 'F' | 'K' | number[])[] = ['C', 'F', 'K', ...permutationsOf(shape.length)];
      for (const target of targets) {
        it(`test_to_dense: shape [${shape}], ${order}, perm ${perm ? `[${perm}]` : 'none'}, slices ${slices ? JSON.stringify(slices) : 'none'}, to ${typeof target === 'string' ? target : `[${target}]`}`, () => {
          let layout = denseLayout(shape, itemsize, order);
          let model = denseModel(shape, itemsize, order);
          if (perm !== null) {
            layout = layout.permuted(perm);
            model = transposeModel(model, perm);
          }
          if (slices !== null) {
            layout = layout.sliced(...slices);
            model = indexModel(model, slices);
          }
          expectMatches(layout, model);
          expectSameAsFromStrides(layout, model);
          const dense = layout.toDense(target);
          // a.copy(order): C or F as asked; K keeps the order of the strides (largest |stride| first).
          const axes = model.shape.map((_, i) => i);
          const denseOrder =
            target === 'K'
              ? [...axes].sort((a, b) => Math.abs(model.strides[b]!) - Math.abs(model.strides[a]!) || a - b)
              : target;
          const copy = denseModel(model.shape, itemsize, denseOrder);
          expectMatches(dense, copy);
          expectSameAsFromStrides(dense, copy);
          expect(dense.isDense).toBe(true);
          expect(dense.requiredSizeInBytes()).toBe(product(model.shape) * itemsize);
          expect(dense.offsetBounds).toEqual({ min: 0, max: product(model.shape) - 1 });
        });
      }
    }
  }
});
