// hostView, addressOf and detachView: koffi only, no driver call, so they work without a GPU.

import type { DevicePointer } from '@cumem/core-types';
import { viewBuffer, viewByteOffset } from '@cumem/core-types';
import { handleArgument, sizeArgument } from './handle-argument.js';
import { loadKoffi } from './koffi-module.js';

const pointerSlot = new BigUint64Array(1);
/** koffi.view aborts the process above 2**32 bytes; the N-API adapter refuses the same sizes. */
const largestHostView = 2 ** 32;

/**
 * A Uint8Array over `size` bytes of native memory at `pointer`, without copying.
 * @throws RangeError for the null pointer with a non-zero size, or a size over 4 GiB (koffi
 *   would abort the process on either).
 */
export function hostView(pointer: DevicePointer, size: number): Uint8Array {
  // The contract's argument rules, as the N-API addon reads them: koffi would view 1 byte for
  // 1.5 and none for NaN.
  handleArgument(pointer, 'pointer');
  sizeArgument(size);
  if (size === 0) return new Uint8Array(0);
  if (pointer === 0n)
    throw new RangeError(`hostView: the null pointer cannot be viewed (${size} bytes asked)`);
  if (size > largestHostView) {
    throw new RangeError(
      `hostView: ${size} bytes are more than one view can show (at most 4294967296 bytes, 4 GiB)`,
    );
  }
  const koffi = loadKoffi();
  // Decoding a `void *` from memory gives the pointer as koffi takes it (koffi 3: a bigint, the
  // address wrapped to 64 bits as the slot stores it).
  pointerSlot[0] = pointer;
  const external = koffi.decode(pointerSlot, 'void *');
  return new Uint8Array(koffi.view(external, size));
}

/**
 * The address of the first byte of `view`. Reading `.buffer` first makes the engine give a small
 * typed array a backing store of its own, which never moves, so the address stays valid while the
 * view is alive.
 */
export function addressOf(view: ArrayBufferView | ArrayBuffer): DevicePointer {
  const koffi = loadKoffi();
  if (ArrayBuffer.isView(view)) return koffi.address(viewBuffer(view)) + BigInt(viewByteOffset(view));
  const tag = Object.prototype.toString.call(view);
  if (tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') return koffi.address(view);
  throw new TypeError('addressOf: expected an ArrayBuffer or an ArrayBufferView');
}

/**
 * Always false: koffi's `view` ArrayBuffers cannot be detached from JS (a structuredClone or
 * postMessage transfer silently copies them, and koffi has no detach call), so @cumem/memory
 * keeps their memory until they are garbage-collected instead.
 * @throws TypeError when `view` is not an ArrayBuffer.
 */
export function detachView(view: ArrayBuffer): boolean {
  if (Object.prototype.toString.call(view) !== '[object ArrayBuffer]') {
    throw new TypeError('detachView: expected an ArrayBuffer');
  }
  return false;
}

// Handing koffi a typed array for a `void *` parameter costs more per call than a number address
// (koffi asks N-API for the array's data on every call). A backing store never moves once it
// exists, so its address is looked up once per ArrayBuffer and kept here.
const backingStoreAddresses = new WeakMap<ArrayBufferLike, number>();

/** The address of `view`'s first byte as a number, for the `hostAddress` parameters of the copies. */
export function hostAddress(view: ArrayBufferView): number {
  const buffer = viewBuffer(view);
  let base = backingStoreAddresses.get(buffer);
  if (base === undefined) {
    base = Number(loadKoffi().address(buffer));
    backingStoreAddresses.set(buffer, base);
  }
  return base + viewByteOffset(view);
}
