// The CUDA Array Interface of any owner's bytes (byte-array-interface.ts describes it): for
// wrappers of a Buffer outside this package, such as interop-arrow's CudaBuffer.
import { checkAddress, checkBoolean, checkSize, describeValue } from '@cumem/core-types';
import { bufferBrand, bufferState } from '../buffer/buffer-base.js';
import { type ByteArrayInterface, byteArrayInterfaceOf } from './byte-array-interface.js';

/**
 * The interface of `size` bytes at `address`, shown by `owner` (a Buffer, or what wraps one).
 * It names no stream: work the owner ordered on streams is the caller's to order (as the
 * view's interface).
 * @throws CudaStateError when `owner` is closed; TypeError for memory no device can address.
 */
export function byteArrayInterface(
  owner: { readonly isClosed: boolean; readonly isDeviceAccessible: boolean },
  address: bigint,
  size: number,
  readonly: boolean,
): ByteArrayInterface {
  // A Buffer answers from its state (bufferState); a wrapper of one through its getters.
  const buffer = bufferBrand.has(owner);
  if (!buffer && (typeof owner !== 'object' || owner === null || typeof owner.isClosed !== 'boolean')) {
    throw new TypeError(`owner must be a Buffer (or an object with isClosed), got ${describeValue(owner)}`);
  }
  checkAddress(address, 'address');
  checkSize(size, 'size');
  checkBoolean(readonly, 'readonly');
  return byteArrayInterfaceOf(buffer ? bufferState(owner) : owner, address, size, readonly);
}
