// Python slice semantics for StridedLayout.sliced: negative indices count from the end, bounds
// clamp, a negative step walks backwards, and a zero step is refused.
import { checkInteger, describeValue } from '@cumem/core-types';

/** One axis of a slice: `start` (inclusive), `stop` (exclusive), `step` (default 1); null/undefined = default. */
export interface SliceRange {
  readonly start?: number | null;
  readonly stop?: number | null;
  readonly step?: number | null;
}

/**
 * What `sliced` accepts for each axis: an integer index (drops the axis), `null` (the whole
 * axis), a {@link SliceRange}, or a tuple `[start, stop?, step?]`.
 */
export type AxisSlice =
  | number
  | null
  | SliceRange
  | readonly [(number | null)?, (number | null)?, (number | null)?];

/** The result of resolving one {@link AxisSlice} against an axis of `length` elements. */
export interface ResolvedSlice {
  /** True for an integer index: the axis disappears. */
  readonly drop: boolean;
  /** First index taken. */
  readonly start: number;
  /** Index step (never 0). */
  readonly step: number;
  /** Elements taken. */
  readonly count: number;
}

function optionalInteger(value: unknown, name: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be an integer or null, got ${describeValue(value)}`);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`);
  return value;
}

/** Resolves one axis slice. `where` names it in messages (e.g. `'ranges[1]'`). */
export function resolveSlice(slice: unknown, length: number, where: string): ResolvedSlice {
  if (slice === null || slice === undefined) return { drop: false, start: 0, step: 1, count: length };
  if (typeof slice === 'number') {
    const index = checkInteger(slice, where);
    const normalized = index < 0 ? index + length : index;
    if (normalized < 0 || normalized >= length) {
      throw new RangeError(`${where}: index ${index} is out of range for an axis of ${length} elements`);
    }
    return { drop: true, start: normalized, step: 1, count: 1 };
  }
  let start: number | null;
  let stop: number | null;
  let step: number | null;
  if (Array.isArray(slice)) {
    if (slice.length > 3)
      throw new RangeError(`${where}: a slice tuple has at most 3 entries [start, stop, step]`);
    start = optionalInteger(slice[0], `${where}[0] (start)`);
    stop = optionalInteger(slice[1], `${where}[1] (stop)`);
    step = optionalInteger(slice[2], `${where}[2] (step)`);
  } else if (typeof slice === 'object') {
    const range = slice as SliceRange;
    start = optionalInteger(range.start, `${where}.start`);
    stop = optionalInteger(range.stop, `${where}.stop`);
    step = optionalInteger(range.step, `${where}.step`);
  } else {
    throw new TypeError(
      `${where} must be an index, null, a { start, stop, step } range or a [start, stop, step] tuple, got ${describeValue(slice)}`,
    );
  }
  const stepValue = step ?? 1;
  if (stepValue === 0) throw new RangeError(`${where}: slice step must not be zero`);
  if (stepValue > 0) {
    const first = clamp(start === null ? 0 : start < 0 ? start + length : start, 0, length);
    const end = clamp(stop === null ? length : stop < 0 ? stop + length : stop, 0, length);
    const count = end > first ? Math.ceil((end - first) / stepValue) : 0;
    return { drop: false, start: first, step: stepValue, count };
  }
  const first = clamp(start === null ? length - 1 : start < 0 ? start + length : start, -1, length - 1);
  const end = clamp(stop === null ? -1 : stop < 0 ? stop + length : stop, -1, length - 1);
  const count = first > end ? Math.ceil((first - end) / -stepValue) : 0;
  return { drop: false, start: first, step: stepValue, count };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
