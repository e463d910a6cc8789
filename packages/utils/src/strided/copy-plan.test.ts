import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indices } from '../../test/support.js';
import { planCopy } from './copy-plan.js';
import { hostStridedCopy } from './host-strided-copy.js';
import { StridedLayout } from './strided-layout.js';

const side = (layout: StridedLayout) => ({
  offset: layout.offset * layout.itemsize,
  strides: layout.strides.map((s) => s * layout.itemsize),
});

describe('planCopy', () => {
  it('a contiguous copy is one 1D copy', () => {
    const layout = StridedLayout.dense([64, 32, 8], 4);
    const plan = planCopy(layout.shape, 4, side(layout), side(layout));
    expect(plan).toMatchObject({ calls: 1, kind: '1d', width: 64 * 32 * 8 * 4, outer: [] });
  });

  it('a 4096 x 4096 float32 sub-matrix of a wider matrix is one 2D copy (the bandwidth target)', () => {
    const source = StridedLayout.dense([8192, 8192], 4).sliced([1000, 5096], [2000, 6096]);
    const target = StridedLayout.dense([4096, 4096], 4);
    const plan = planCopy(source.shape, 4, side(source), side(target));
    expect(plan).toMatchObject({
      calls: 1,
      kind: '2d',
      width: 4096 * 4,
      height: 4096,
      srcPitch: 8192 * 4,
      dstPitch: 4096 * 4,
    });
    expect(plan.srcOffset).toBe((1000 * 8192 + 2000) * 4);
  });

  it('a batch of sub-matrices is one 3D copy', () => {
    const source = StridedLayout.dense([10, 100, 100], 8).sliced([2, 8], [10, 60], [5, 25]);
    const target = StridedLayout.dense([6, 50, 20], 8);
    const plan = planCopy(source.shape, 8, side(source), side(target));
    expect(plan).toMatchObject({
      calls: 1,
      kind: '3d',
      width: 160,
      height: 50,
      depth: 6,
      srcHeight: 100,
      dstHeight: 50,
    });
  });

  it('drops extent-1 axes and flips reversed axes', () => {
    const source = StridedLayout.dense([1, 16, 1], 2).sliced(null, [null, null, -1]);
    const target = StridedLayout.dense([1, 16, 1], 2).sliced(null, [null, null, -1]);
    const plan = planCopy(source.shape, 2, side(source), side(target));
    expect(plan).toMatchObject({ calls: 1, kind: '1d', width: 32, srcOffset: 0, dstOffset: 0 });
  });

  it('a transpose copies element-wise rows (width = itemsize)', () => {
    const source = StridedLayout.dense([8, 4], 4);
    const target = StridedLayout.dense([8, 4], 4, 'F');
    const plan = planCopy(source.shape, 4, side(source), side(target));
    expect(plan.width).toBe(4);
    expect(plan.kind).toBe('2d');
    expect(plan.calls).toBe(4);
  });

  it('an empty shape plans no call', () => {
    const layout = StridedLayout.dense([3, 0], 4);
    expect(planCopy(layout.shape, 4, side(layout), side(layout)).calls).toBe(0);
  });
});

// Random layouts of one shape on both sides: the CPU executor of a plan must move every element
// exactly where brute-force index enumeration says.
const layoutPair = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 4 })
  .chain((shape) => {
    const ndim = shape.length;
    const arrangement = fc.record({
      order: fc.shuffledSubarray([...shape.keys()], { minLength: ndim, maxLength: ndim }),
      pad: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: ndim, maxLength: ndim }),
      reverse: fc.array(fc.boolean(), { minLength: ndim, maxLength: ndim }),
    });
    return fc.tuple(fc.constant(shape), arrangement, arrangement, fc.constantFrom(1, 2, 4, 8));
  })
  .map(([shape, a, b, itemsize]) => [shape, build(shape, a, itemsize), build(shape, b, itemsize)] as const);

function build(
  shape: number[],
  arrangement: { order: number[]; pad: number[]; reverse: boolean[] },
  itemsize: number,
): StridedLayout {
  // Padded dense strides in a random axis order, then reversed axes by slicing.
  const strides = new Array<number>(shape.length).fill(0);
  let stride = 1;
  for (let i = arrangement.order.length - 1; i >= 0; i--) {
    const axis = arrangement.order[i]!;
    strides[axis] = stride;
    stride *= shape[axis]! + arrangement.pad[axis]!;
  }
  const base = new StridedLayout(shape, strides, itemsize, { offset: 1 });
  return base.sliced(...arrangement.reverse.map((r) => (r ? ([null, null, -1] as const) : null)));
}

describe('hostStridedCopy', () => {
  it('moves every element to the place brute-force enumeration gives, for any pair of layouts', () => {
    fc.assert(
      fc.property(layoutPair, ([shape, srcLayout, dstLayout]) => {
        const itemsize = srcLayout.itemsize;
        const src = new Uint8Array(srcLayout.requiredSizeInBytes()).map((_, i) => (i * 7 + 3) & 0xff);
        const dst = new Uint8Array(dstLayout.requiredSizeInBytes()).fill(0xee);
        const expected = dst.slice();
        for (const index of indices(shape)) {
          const from = srcLayout.offsetOf(index) * itemsize;
          const to = dstLayout.offsetOf(index) * itemsize;
          expected.set(src.subarray(from, from + itemsize), to);
        }
        hostStridedCopy(
          shape,
          itemsize,
          { bytes: dst, ...side(dstLayout) },
          { bytes: src, ...side(srcLayout) },
        );
        expect(dst).toEqual(expected);
      }),
    );
  });
});
