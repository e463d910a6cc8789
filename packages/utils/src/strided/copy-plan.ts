// Turns a strided copy between two layouts of one shape into the fewest driver copies:
// drop extent-1 axes, make source strides positive (flipping an axis on both sides keeps the
// element pairing), order axes consistently on both sides, merge axes that are contiguous on
// both sides, then fold the two innermost remaining axes into one cuMemcpy2D / cuMemcpy3D and
// loop over the rest.

import { checkBoolean, checkOptions, checkSize, describeValue } from '@cumem/core-types';
import { checkShape, checkSignedInteger, checkStrides } from './layout-validation.js';

/** One axis of a copy: extent and byte strides on each side. */
export interface CopyAxis {
  readonly extent: number;
  readonly srcStride: number;
  readonly dstStride: number;
}

/** A planned copy. All strides and offsets in bytes, relative to each side's base address. */
export interface CopyPlan {
  /** 0 when there is nothing to copy (an empty shape). */
  readonly calls: number;
  /** `'1d'`: contiguous runs; `'2d'` / `'3d'`: pitched copies. */
  readonly kind: '1d' | '2d' | '3d';
  /** Bytes of each contiguous run. */
  readonly width: number;
  /** Rows per 2D/3D copy (1 for 1d). */
  readonly height: number;
  readonly srcPitch: number;
  readonly dstPitch: number;
  /** Slices per 3D copy (1 otherwise). */
  readonly depth: number;
  /** Rows per slice on each side (3d only). */
  readonly srcHeight: number;
  readonly dstHeight: number;
  /** Axes looped over, outermost first; each iteration issues one copy. */
  readonly outer: readonly CopyAxis[];
  /** Byte offset of the first element on each side. */
  readonly srcOffset: number;
  readonly dstOffset: number;
  /** Total bytes moved. */
  readonly bytes: number;
}

/**
 * Pitches past this are refused by cuMemcpy2D (CU_DEVICE_ATTRIBUTE_MAX_PITCH is 2**31 - 1 on
 * every current GPU), so such axes are looped over instead.
 */
export const MAX_PITCH = 2 ** 31 - 1;

/** One side of a copy: byte offset of element (0, ..., 0) and byte strides. */
export interface CopySide {
  readonly offset: number;
  readonly strides: readonly number[];
}

/**
 * Plans a copy of `shape` elements of `itemsize` bytes; strides and offsets in bytes.
 * @throws TypeError / RangeError for a shape, itemsize or side that is malformed.
 */
export function planCopy(
  shape: readonly number[],
  itemsize: number,
  src: CopySide,
  dst: CopySide,
  options: { readonly pitched?: boolean } = {},
): CopyPlan {
  const checkedShape = checkShape(shape);
  if (checkSize(itemsize, 'itemsize') === 0) throw new RangeError('itemsize must be at least 1 byte');
  checkSide(src, checkedShape.length, 'src');
  checkSide(dst, checkedShape.length, 'dst');
  const { pitched } = checkOptions(options);
  if (pitched !== undefined) checkBoolean(pitched, 'options.pitched');
  return buildCopyPlan(checkedShape, itemsize, src, dst, options);
}

function checkSide(side: unknown, ndim: number, name: string): void {
  if (typeof side !== 'object' || side === null) {
    throw new TypeError(`${name} must be { offset, strides }, got ${describeValue(side)}`);
  }
  const { offset, strides } = side as Record<string, unknown>;
  checkSignedInteger(offset, `${name}.offset`);
  if (checkStrides(strides, ndim, `${name}.strides`) === null) {
    throw new TypeError(`${name}.strides must be an array of byte strides`);
  }
}

/** @internal {@link planCopy} for arguments already checked (the strided copy paths). */
export function buildCopyPlan(
  shape: readonly number[],
  itemsize: number,
  src: { readonly offset: number; readonly strides: readonly number[] },
  dst: { readonly offset: number; readonly strides: readonly number[] },
  options: { readonly pitched?: boolean } = {},
): CopyPlan {
  let srcOffset = src.offset;
  let dstOffset = dst.offset;
  const axes: CopyAxis[] = [];
  let volume = 1;
  for (let axis = 0; axis < shape.length; axis++) {
    const extent = shape[axis]!;
    volume *= extent;
    if (extent === 1) continue;
    let srcStride = src.strides[axis]!;
    let dstStride = dst.strides[axis]!;
    if (srcStride < 0 || (srcStride === 0 && dstStride < 0)) {
      srcOffset += (extent - 1) * srcStride;
      dstOffset += (extent - 1) * dstStride;
      srcStride = -srcStride;
      dstStride = -dstStride;
    }
    axes.push({ extent, srcStride, dstStride });
  }
  const base = { srcOffset, dstOffset, bytes: volume * itemsize };
  if (volume === 0) return { ...emptyPlan(itemsize), ...base, calls: 0 };
  const pitched = options.pitched ?? true;
  // Two consistent orders: by destination stride and by source stride; keep the cheaper plan.
  const byDst = [...axes].sort(
    (a, b) => Math.abs(b.dstStride) - Math.abs(a.dstStride) || b.srcStride - a.srcStride,
  );
  const bySrc = [...axes].sort(
    (a, b) => b.srcStride - a.srcStride || Math.abs(b.dstStride) - Math.abs(a.dstStride),
  );
  const first = fold(merge(byDst), itemsize, pitched);
  const second = fold(merge(bySrc), itemsize, pitched);
  const best =
    second.calls < first.calls || (second.calls === first.calls && second.width > first.width)
      ? second
      : first;
  return { ...best, ...base };
}

function emptyPlan(itemsize: number): Omit<CopyPlan, 'srcOffset' | 'dstOffset' | 'bytes'> {
  return {
    calls: 1,
    kind: '1d',
    width: itemsize,
    height: 1,
    srcPitch: 0,
    dstPitch: 0,
    depth: 1,
    srcHeight: 1,
    dstHeight: 1,
    outer: [],
  };
}

/** Merges neighbours (outer, inner) whose outer stride is exactly the inner axis' span on both sides. */
function merge(axes: readonly CopyAxis[]): CopyAxis[] {
  const merged: CopyAxis[] = [];
  for (let i = axes.length - 1; i >= 0; i--) {
    const outer = axes[i]!;
    const inner = merged[0];
    if (
      inner &&
      outer.srcStride === inner.srcStride * inner.extent &&
      outer.dstStride === inner.dstStride * inner.extent
    ) {
      merged[0] = {
        extent: outer.extent * inner.extent,
        srcStride: inner.srcStride,
        dstStride: inner.dstStride,
      };
    } else {
      merged.unshift(outer);
    }
  }
  return merged;
}

function fold(
  axes: CopyAxis[],
  itemsize: number,
  pitched: boolean,
): Omit<CopyPlan, 'srcOffset' | 'dstOffset' | 'bytes'> {
  const rest = [...axes];
  let width = itemsize;
  const innermost = rest[rest.length - 1];
  if (innermost && innermost.srcStride === itemsize && innermost.dstStride === itemsize) {
    width = innermost.extent * itemsize;
    rest.pop();
  }
  const plan = { ...emptyPlan(itemsize), width };
  const row = rest[rest.length - 1];
  if (!pitched || !row || !pitchOk(row.srcStride, width) || !pitchOk(row.dstStride, width)) {
    return { ...plan, outer: rest, calls: product(rest) };
  }
  rest.pop();
  const slice = rest[rest.length - 1];
  const srcHeight = slice ? slice.srcStride / row.srcStride : 0;
  const dstHeight = slice ? slice.dstStride / row.dstStride : 0;
  if (
    slice &&
    Number.isInteger(srcHeight) &&
    Number.isInteger(dstHeight) &&
    srcHeight >= row.extent &&
    dstHeight >= row.extent
  ) {
    rest.pop();
    return {
      ...plan,
      kind: '3d',
      height: row.extent,
      srcPitch: row.srcStride,
      dstPitch: row.dstStride,
      depth: slice.extent,
      srcHeight,
      dstHeight,
      outer: rest,
      calls: product(rest),
    };
  }
  return {
    ...plan,
    kind: '2d',
    height: row.extent,
    srcPitch: row.srcStride,
    dstPitch: row.dstStride,
    outer: rest,
    calls: product(rest),
  };
}

function pitchOk(pitch: number, width: number): boolean {
  return pitch >= width && pitch <= MAX_PITCH;
}

function product(axes: readonly CopyAxis[]): number {
  let count = 1;
  for (const axis of axes) count *= axis.extent;
  return count;
}

/**
 * Calls `visit(srcOffset, dstOffset)` once per copy of `plan`, walking its outer axes in order
 * (the last outer axis fastest). Offsets are in bytes.
 */
export function forEachCopy(plan: CopyPlan, visit: (srcOffset: number, dstOffset: number) => void): void {
  if (plan.calls === 0) return;
  const outer = plan.outer;
  const index = new Array<number>(outer.length).fill(0);
  let srcOffset = plan.srcOffset;
  let dstOffset = plan.dstOffset;
  while (true) {
    visit(srcOffset, dstOffset);
    let axis = outer.length - 1;
    while (axis >= 0) {
      const dim = outer[axis]!;
      index[axis]! += 1;
      srcOffset += dim.srcStride;
      dstOffset += dim.dstStride;
      if (index[axis]! < dim.extent) break;
      srcOffset -= dim.srcStride * dim.extent;
      dstOffset -= dim.dstStride * dim.extent;
      index[axis] = 0;
      axis--;
    }
    if (axis < 0) return;
  }
}
