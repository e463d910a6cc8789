// A buffer as the CUDA Array Interface (version 3, camelCase fields, as @cumem/utils reads and
// writes it) of a 1-D uint8 array: what Buffer and interop-arrow's CudaBuffer export, like
// pyarrow's `to_numba`.
import { CudaStateError } from '@cumem/core-types';

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

/** What the interface needs to know of the memory's owner (a Buffer's state, or a wrapper of one). */
export interface ByteArrayOwnerFacts {
  readonly isClosed: boolean;
  readonly isDeviceAccessible: boolean;
}

/**
 * The interface of `size` bytes at `address` (checked by the caller) of an owner with `facts`.
 * @throws CudaStateError when the owner is closed; TypeError for memory no device can address.
 */
export function byteArrayInterfaceOf(
  facts: ByteArrayOwnerFacts,
  address: bigint,
  size: number,
  readonly: boolean,
): ByteArrayInterface {
  if (facts.isClosed) throw CudaStateError.closed('Buffer');
  if (!facts.isDeviceAccessible)
    throw new TypeError('memory no device can address has no CUDA Array Interface');
  return Object.freeze({
    shape: Object.freeze([size] as [number]),
    typestr: '|u1',
    data: Object.freeze([address, readonly] as [bigint, boolean]),
    strides: null,
    version: 3,
  });
}
