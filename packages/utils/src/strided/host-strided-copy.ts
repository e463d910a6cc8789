// Strided copy between two pieces of JS-visible memory, done on the CPU: used when both sides
// are host memory, and to stage a host side whose layout would cost the driver thousands of
// tiny copies (e.g. a transpose), so that the driver sees one contiguous side.
import { buildCopyPlan, forEachCopy } from './copy-plan.js';

/** One side of a host copy: the bytes, the byte offset of index (0, ..., 0), and byte strides. */
export interface HostSide {
  readonly bytes: Uint8Array;
  readonly offset: number;
  readonly strides: readonly number[];
}

type UnitArray = Uint8Array | Uint16Array | Uint32Array;

// Elements move as 1-, 2- or 4-byte integer units (8-byte elements as two units): integer
// loads and stores are bit-exact, where a Float64Array could canonicalise NaN payloads.
function units(bytes: Uint8Array, unit: number): UnitArray | undefined {
  const { buffer, byteOffset, byteLength } = bytes;
  if (byteOffset % unit !== 0) return undefined;
  const count = Math.floor(byteLength / unit);
  if (unit === 1) return bytes;
  return unit === 2 ? new Uint16Array(buffer, byteOffset, count) : new Uint32Array(buffer, byteOffset, count);
}

/** Copies every element of `shape` from `src` to `dst` at once. */
export function hostStridedCopy(
  shape: readonly number[],
  itemsize: number,
  dst: HostSide,
  src: HostSide,
): void {
  const plan = buildCopyPlan(shape, itemsize, src, dst, { pitched: false });
  if (plan.calls === 0) return;
  const width = plan.width;
  if (width > 16 || width !== itemsize) {
    forEachCopy(plan, (from, to) => dst.bytes.set(src.bytes.subarray(from, from + width), to));
    return;
  }
  // Element-wise: use unit-sized views when every offset is aligned (the common case), so one
  // load and store moves a unit instead of byte by byte.
  const unit = Math.min(itemsize, 4);
  const perElement = itemsize / unit;
  const srcUnits = units(src.bytes, unit);
  const dstUnits = units(dst.bytes, unit);
  const last = plan.outer[plan.outer.length - 1];
  const aligned =
    last !== undefined &&
    plan.srcOffset % unit === 0 &&
    plan.dstOffset % unit === 0 &&
    plan.outer.every((axis) => axis.srcStride % unit === 0 && axis.dstStride % unit === 0);
  if (aligned && srcUnits && dstUnits && last) {
    const innerSrc = last.srcStride / unit;
    const innerDst = last.dstStride / unit;
    const rowPlan = { ...plan, outer: plan.outer.slice(0, -1), calls: plan.calls / last.extent };
    forEachCopy(rowPlan, (from, to) => {
      let s = from / unit;
      let d = to / unit;
      for (let i = 0; i < last.extent; i++, s += innerSrc, d += innerDst) {
        for (let k = 0; k < perElement; k++) dstUnits[d + k] = srcUnits[s + k]!;
      }
    });
    return;
  }
  forEachCopy(plan, (from, to) => {
    for (let byte = 0; byte < width; byte++) dst.bytes[to + byte] = src.bytes[from + byte]!;
  });
}
