// A buffer as the CUDA Array Interface (version 3, camelCase fields, as @cumem/utils reads and
// writes it) of a 1-D uint8 array: what Buffer and interop-arrow's CudaBuffer export, like
// pyarrow's `to_numba`.
import { CudaStateError, checkAddress, checkBoolean, checkSize, describeValue } from '@cumem/core-types';
import { bufferBrand, bufferState } from '../buffer/buffer-base.js';

/** CUDA Array Interface v3 of a byte array (camelCase; `StridedMemoryView.from` reads it). */
export interface ByteArrayInterface {
  /** `[size]`. */
  readonly shape: readonly [number];
  /** `'|u1'` (uint8). */
  readonly typestr: '|u1';
  /** `[address, readonly]`. */
  readonly data: readonly [bigint, boolean];
  /** null: contiguous. */
  readonly strides: null;
  /** 3. */
  readonly version: 3;
}

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
  if (buffer ? bufferState(owner).isClosed : owner.isClosed) throw CudaStateError.closed('Buffer');
  if (!(buffer ? bufferState(owner).isDeviceAccessible : owner.isDeviceAccessible))
    throw new TypeError('memory no device can address has no CUDA Array Interface');
  return Object.freeze({
    shape: Object.freeze([size] as [number]),
    typestr: '|u1',
    data: Object.freeze([address, readonly] as [bigint, boolean]),
    strides: null,
    version: 3,
  });
}
