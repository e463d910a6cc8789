import {
  type CopyEndpoint,
  type Memcpy2D,
  type Memcpy3D,
  viewBuffer,
  viewByteLength,
  viewByteOffset,
} from '@cumem/core-types';
import { cudaError } from './cuda-errors.js';

/** Gives the bytes at `address` .. `address + size`, or throws the CudaError of `call`. */
export type ResolveBytes = (address: bigint, size: number, call: string) => Uint8Array;

function endpointBytes(
  endpoint: CopyEndpoint,
  key: 'src' | 'dst',
  extent: number,
  resolve: ResolveBytes,
  call: string,
): Uint8Array {
  if (typeof endpoint === 'bigint') return resolve(endpoint, extent, call);
  // The view's own bytes (its internal slots), as the adapters read JS memory.
  const length = viewByteLength(endpoint);
  if (length < extent) {
    // The driver would read or write past the JS buffer; the adapters refuse with this message.
    const name = call === 'cuMemcpy2DAsync' ? 'memcpy2DAsync' : 'memcpy3DAsync';
    throw new RangeError(`${name}: ${key} holds ${length} bytes, fewer than the copy reaches (${extent})`);
  }
  return new Uint8Array(viewBuffer(endpoint), viewByteOffset(endpoint), extent);
}

/** `cuMemcpy2DAsync` executed at once: `height` rows of `widthInBytes` bytes. */
export function copy2D(copy: Memcpy2D, resolve: ResolveBytes): void {
  copy3D({ ...copy, srcHeight: copy.height, dstHeight: copy.height, depth: 1 }, resolve, 'cuMemcpy2DAsync');
}

/** `cuMemcpy3DAsync` executed at once: `depth` slices of `height` rows. */
export function copy3D(copy: Memcpy3D, resolve: ResolveBytes, call = 'cuMemcpy3DAsync'): void {
  const { widthInBytes: width, height, depth, srcPitch, dstPitch, srcHeight, dstHeight } = copy;
  // The driver refuses a row wider than its pitch, or more rows than a slice holds.
  if (width > srcPitch || width > dstPitch || height > srcHeight || height > dstHeight) {
    throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
  }
  if (width === 0 || height === 0 || depth === 0) return;
  const extent = (pitch: number, sliceRows: number) =>
    (depth - 1) * pitch * sliceRows + (height - 1) * pitch + width;
  const src = endpointBytes(copy.src, 'src', extent(srcPitch, srcHeight), resolve, call);
  const dst = endpointBytes(copy.dst, 'dst', extent(dstPitch, dstHeight), resolve, call);
  // Overlap between src and dst is undefined behaviour in CUDA; copying via slice() is fine.
  for (let slice = 0; slice < depth; slice++) {
    for (let row = 0; row < height; row++) {
      const from = slice * srcPitch * srcHeight + row * srcPitch;
      const to = slice * dstPitch * dstHeight + row * dstPitch;
      dst.set(src.subarray(from, from + width), to);
    }
  }
}

/** `cuMemsetD8/16/32Async` executed at once on `bytes` (already `count * elementSize` long). */
export function fill(bytes: Uint8Array, value: number, elementSize: 1 | 2 | 4): void {
  if (elementSize === 1) {
    bytes.fill(value & 0xff);
    return;
  }
  const pattern = new Uint8Array(elementSize);
  const view = new DataView(pattern.buffer);
  if (elementSize === 2) view.setUint16(0, value & 0xffff, true);
  else view.setUint32(0, value >>> 0, true);
  bytes.set(pattern.subarray(0, Math.min(elementSize, bytes.length)));
  // Doubling copies keep a 64 MiB fill fast.
  for (let filled = elementSize; filled < bytes.length; filled *= 2) {
    bytes.copyWithin(filled, 0, Math.min(filled, bytes.length - filled));
  }
}
