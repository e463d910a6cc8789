// One copy between two endpoints, each a unified address or JS memory: a contiguous run, or
// pitched rows (2-D) and slices (3-D), as utils' strided copies plan them. The driver call for
// each kind lives here, with buffer-copy.ts's host-pool rule: only plain device memory takes
// cuMemcpyHtoDAsync / cuMemcpyDtoHAsync; other memory gets cuMemcpyAsync with the JS memory's
// unified address. 2-D / 3-D copies give JS memory as CU_MEMORYTYPE_HOST (the adapters check
// its bounds before the call).
import { type CopyEndpoint, type Driver, viewByteLength } from '@cumem/core-types';

/** One side of a driver copy: a unified address (`deviceOnly`: plain device memory), or JS memory. */
export type CopySide =
  | { readonly kind: 'pointer'; readonly base: bigint; readonly deviceOnly?: boolean }
  | { readonly kind: 'host'; readonly bytes: Uint8Array };

/** The shape of one copy: `width` bytes, or `height` rows (`depth` slices) of them at the given pitches. */
export interface CopyShape {
  readonly kind: '1d' | '2d' | '3d';
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly srcPitch: number;
  readonly dstPitch: number;
  readonly srcHeight: number;
  readonly dstHeight: number;
}

function endpoint(side: CopySide, offset: number): CopyEndpoint {
  return side.kind === 'pointer' ? side.base + BigInt(offset) : side.bytes.subarray(offset);
}

/**
 * Enqueues one copy of `shape` from `src` at byte `from` to `dst` at byte `to` on `stream`,
 * through `driver` (utils may pass a wrapper that routes peer copies). Host to host is a CPU copy.
 *
 * **Unsafe:** addresses, pitches and sizes go to the driver unchecked (the adapters bound only
 * the JS memory endpoints); the caller (utils' strided copies) checked the layouts against open
 * memory. For sibling packages only.
 */
export function issueCopy(
  driver: Driver,
  shape: CopyShape,
  src: CopySide,
  from: number,
  dst: CopySide,
  to: number,
  stream: bigint,
): void {
  const { width } = shape;
  if (shape.kind === '2d') {
    driver.memcpy2DAsync(
      {
        src: endpoint(src, from),
        srcPitch: shape.srcPitch,
        dst: endpoint(dst, to),
        dstPitch: shape.dstPitch,
        widthInBytes: width,
        height: shape.height,
      },
      stream,
    );
  } else if (shape.kind === '3d') {
    driver.memcpy3DAsync(
      {
        src: endpoint(src, from),
        srcPitch: shape.srcPitch,
        srcHeight: shape.srcHeight,
        dst: endpoint(dst, to),
        dstPitch: shape.dstPitch,
        dstHeight: shape.dstHeight,
        widthInBytes: width,
        height: shape.height,
        depth: shape.depth,
      },
      stream,
    );
  } else if (src.kind === 'pointer' && dst.kind === 'pointer') {
    driver.memcpyAsync(dst.base + BigInt(to), src.base + BigInt(from), width, stream);
  } else if (src.kind === 'host' && dst.kind === 'pointer') {
    const bytes = hostRange(src.bytes, from, width);
    if (dst.deviceOnly !== false) driver.memcpyHtoDAsync(dst.base + BigInt(to), bytes, stream);
    else driver.memcpyAsync(dst.base + BigInt(to), driver.addressOf(bytes), width, stream);
  } else if (src.kind === 'pointer' && dst.kind === 'host') {
    const bytes = hostRange(dst.bytes, to, width);
    if (src.deviceOnly !== false) driver.memcpyDtoHAsync(bytes, src.base + BigInt(from), stream);
    else driver.memcpyAsync(driver.addressOf(bytes), src.base + BigInt(from), width, stream);
  } else if (src.kind === 'host' && dst.kind === 'host') {
    dst.bytes.set(src.bytes.subarray(from, from + width), to);
  }
}

// `width` bytes of JS memory at `offset`, all of them inside it: the copy hands the driver an
// address and `width`, so a plan checked against a length the view does not have (a replaced
// byteLength getter) stops here rather than reading or writing past the view.
function hostRange(bytes: Uint8Array, offset: number, width: number): Uint8Array {
  const range = bytes.subarray(offset, offset + width);
  if (viewByteLength(range) !== width) {
    throw new RangeError(
      `${width} bytes at offset ${offset} run past JS memory of ${viewByteLength(bytes)} bytes`,
    );
  }
  return range;
}
