// Property tests of the layout arithmetic against brute-force enumeration of every index.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indices } from '../../test/support.js';
import type { AxisSlice } from './layout-slicing.js';
import { StridedLayout } from './strided-layout.js';

function offsets(layout: StridedLayout): number[] {
  return [...indices(layout.shape)].map((index) => layout.offsetOf(index));
}

const shapeArb = fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 0, maxLength: 4 });
const itemsizeArb = fc.constantFrom(1, 2, 4, 8);

/** A layout with non-negative strides (possibly overlapping or gapped) and an offset. */
const layoutArb = shapeArb.chain((shape) =>
  fc
    .tuple(
      fc.array(fc.integer({ min: 0, max: 30 }), { minLength: shape.length, maxLength: shape.length }),
      itemsizeArb,
      fc.integer({ min: 0, max: 20 }),
    )
    .map(([strides, itemsize, offset]) => new StridedLayout(shape, strides, itemsize, { offset })),
);

/** A dense layout in a random axis order, with an optional permutation applied afterwards. */
const denseArb = shapeArb.chain((shape) =>
  fc
    .tuple(
      fc.shuffledSubarray([...shape.keys()], { minLength: shape.length, maxLength: shape.length }),
      itemsizeArb,
    )
    .map(([order, itemsize]) => StridedLayout.dense(shape, itemsize, order)),
);

function pySlice(length: number, start: number | null, stop: number | null, step: number): number[] {
  // Python's range(*slice(start, stop, step).indices(length)).
  const out: number[] = [];
  if (step > 0) {
    let s = start === null ? 0 : start < 0 ? Math.max(start + length, 0) : Math.min(start, length);
    const e = stop === null ? length : stop < 0 ? Math.max(stop + length, 0) : Math.min(stop, length);
    for (; s < e; s += step) out.push(s);
  } else {
    let s =
      start === null ? length - 1 : start < 0 ? Math.max(start + length, -1) : Math.min(start, length - 1);
    const e = stop === null ? -1 : stop < 0 ? Math.max(stop + length, -1) : Math.min(stop, length - 1);
    for (; s > e; s += step) out.push(s);
  }
  return out;
}

describe('StridedLayout properties', () => {
  it('requiredSizeInBytes equals (brute-force max offset + 1) * itemsize', () => {
    fc.assert(
      fc.property(layoutArb, (layout) => {
        const all = offsets(layout);
        const expected = all.length === 0 ? 0 : (Math.max(...all) + 1) * layout.itemsize;
        expect(layout.requiredSizeInBytes()).toBe(expected);
      }),
    );
  });

  it('isContiguousAny iff the offsets are exactly offset..offset+volume-1', () => {
    fc.assert(
      fc.property(layoutArb, (layout) => {
        const all = offsets(layout).sort((a, b) => a - b);
        const exact = all.every((value, i) => value === layout.offset + i);
        expect(layout.isContiguousAny).toBe(exact);
        if (layout.isContiguousC && all.length > 0) {
          expect(offsets(layout)).toEqual(all);
        }
      }),
    );
  });

  it('dense layouts in any order are dense, and C/F flags match a C/F enumeration', () => {
    fc.assert(
      fc.property(denseArb, (layout) => {
        expect(layout.isDense).toBe(true);
        expect(layout.requiredSizeInBytes()).toBe(layout.volume * layout.itemsize);
        const cOrder = offsets(layout);
        const ascending = cOrder.every((value, i) => value === i);
        expect(layout.isContiguousC).toBe(ascending || layout.volume === 0);
        const fOrder = offsets(layout.permuted([...layout.shape.keys()].reverse()));
        expect(layout.isContiguousF).toBe(fOrder.every((value, i) => value === i) || layout.volume === 0);
      }),
    );
  });

  it('permuted then permuted by the inverse is the identity', () => {
    fc.assert(
      fc.property(
        layoutArb.chain((layout) =>
          fc
            .shuffledSubarray([...layout.shape.keys()], { minLength: layout.ndim, maxLength: layout.ndim })
            .map((perm) => [layout, perm] as const),
        ),
        ([layout, perm]) => {
          const inverse = new Array<number>(perm.length);
          perm.forEach((axis, i) => {
            inverse[axis] = i;
          });
          expect(layout.permuted(perm).permuted(inverse).equals(layout)).toBe(true);
          // A permutation moves axes but never changes the set of addressed elements.
          expect(offsets(layout.permuted(perm)).sort((a, b) => a - b)).toEqual(
            offsets(layout).sort((a, b) => a - b),
          );
        },
      ),
    );
  });

  it('sliced views index the same elements as brute-force Python slicing', () => {
    const sliceArb = fc.oneof(
      fc.constant(null),
      fc.tuple(
        fc.option(fc.integer({ min: -6, max: 6 })),
        fc.option(fc.integer({ min: -6, max: 6 })),
        fc.integer({ min: -3, max: 3 }).filter((s) => s !== 0),
      ),
    );
    fc.assert(
      fc.property(
        denseArb.chain((layout) =>
          fc.array(sliceArb, { maxLength: layout.ndim }).map((slices) => [layout, slices] as const),
        ),
        ([layout, slices]) => {
          const sliced = layout.sliced(...(slices as AxisSlice[]));
          const perAxis = layout.shape.map((extent, axis) => {
            const slice = slices[axis];
            if (slice === null || slice === undefined) return [...Array(extent).keys()];
            return pySlice(extent, slice[0], slice[1], slice[2]);
          });
          expect(sliced.shape).toEqual(perAxis.map((list) => list.length));
          const expected = [...indices(sliced.shape)].map((index) =>
            layout.offsetOf(index.map((i, axis) => perAxis[axis]![i]!)),
          );
          expect(offsets(sliced)).toEqual(expected);
          if (expected.length > 0)
            expect(sliced.requiredSizeInBytes()).toBeLessThanOrEqual(layout.requiredSizeInBytes());
        },
      ),
    );
  });

  it('toDense preserves shape and itemsize and is dense', () => {
    fc.assert(
      fc.property(
        layoutArb,
        fc.constantFrom('K', 'C', 'F') as fc.Arbitrary<'K' | 'C' | 'F'>,
        (layout, order) => {
          const dense = layout.toDense(order);
          expect(dense.shape).toEqual(layout.shape);
          expect(dense.itemsize).toBe(layout.itemsize);
          expect(dense.isDense).toBe(true);
          expect(dense.requiredSizeInBytes()).toBe(layout.volume * layout.itemsize);
          if (order === 'C') expect(dense.isContiguousC).toBe(true);
          if (order === 'F') expect(dense.isContiguousF).toBe(true);
        },
      ),
    );
  });

  it('repacked to a smaller itemsize and back is the identity, and covers the same bytes', () => {
    fc.assert(
      fc.property(
        denseArb.filter((layout) => layout.ndim > 0 && layout.shape.every((extent) => extent > 0)),
        (layout) => {
          const contiguousAxis = layout.strides.findIndex(
            (stride, axis) => stride === 1 || layout.shape[axis] === 1,
          );
          if (contiguousAxis < 0 || layout.itemsize === 1) return;
          const unpacked = layout.repacked(1, { axis: contiguousAxis });
          expect(unpacked.requiredSizeInBytes()).toBe(layout.requiredSizeInBytes());
          expect(unpacked.volume).toBe(layout.volume * layout.itemsize);
          const repacked = unpacked.repacked(layout.itemsize, { axis: contiguousAxis });
          expect(repacked.shape).toEqual(layout.shape);
          expect(offsets(repacked)).toEqual(offsets(layout));
        },
      ),
    );
  });
});
