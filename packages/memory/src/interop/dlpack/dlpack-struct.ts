// The byte layout of DLPack's structs (dlpack.h, version 1.x; the legacy DLManagedTensor of
// 0.x), and the writer of the structs cumem exports. x86-64 and AArch64 Linux: 8-byte pointers,
// little-endian. The reader (imports) is in @cumem/utils.
import { checkAddress, checkBoolean, checkSizeAtMost, describeValue } from '@cumem/core-types';
import { checkStructFields, DLPACK_MAX_AXES } from './dlpack-checks.js';

/** `DLDeviceType` values cumem maps (dlpack.h). */
export const DLDeviceType = Object.freeze({ CPU: 1, CUDA: 2, CUDAHost: 3, CUDAManaged: 13 } as const);

/** `DLPACK_FLAG_BITMASK_READ_ONLY` of `DLManagedTensorVersioned.flags`. */
export const DLPACK_FLAG_READ_ONLY = 1n;

/** Offsets of `DLTensor`'s fields from its start (48 bytes). */
export const TensorField = Object.freeze({
  data: 0,
  deviceType: 8,
  deviceId: 12,
  ndim: 16,
  dtypeCode: 20,
  dtypeBits: 21,
  dtypeLanes: 22,
  shape: 24,
  strides: 32,
  byteOffset: 40,
  size: 48,
} as const);

/** `DLManagedTensorVersioned`: version, manager_ctx, deleter, flags, then the tensor (80 bytes). */
export const VersionedField = Object.freeze({
  major: 0,
  minor: 4,
  managerCtx: 8,
  deleter: 16,
  flags: 24,
  tensor: 32,
  size: 80,
} as const);

/** Legacy `DLManagedTensor`: the tensor first, then manager_ctx and deleter (64 bytes). */
export const LegacyField = Object.freeze({ tensor: 0, managerCtx: 48, deleter: 56, size: 64 } as const);

/** What an exported struct describes. */
export interface DLPackTensorFields {
  /** `data` (what consumers add `byteOffset` to). */
  readonly data: bigint;
  readonly byteOffset: bigint;
  readonly deviceType: number;
  readonly deviceId: number;
  readonly shape: readonly number[];
  /** In elements. */
  readonly strides: readonly number[];
  readonly dtype: { readonly code: number; readonly bits: number; readonly lanes: number };
  readonly readonly: boolean;
}

/** Bytes of a struct with `ndim` axes: the struct, then shape and strides (int64 each). */
export function dlpackStructSize(versioned: boolean, ndim: number): number {
  checkBoolean(versioned, 'versioned');
  checkSizeAtMost(ndim, DLPACK_MAX_AXES, 'ndim');
  return structBytes(versioned, ndim);
}

/** {@link dlpackStructSize} for arguments cumem checked already (an export of a checked source). */
export function structBytes(versioned: boolean, ndim: number): number {
  return (versioned ? VersionedField.size : LegacyField.size) + 16 * ndim;
}

/**
 * Writes a struct at `address` into `bytes` (the memory there), its shape and strides after it.
 * The version's major (versioned) or the data pointer's low 32 bits (legacy) are the word the
 * release function overwrites.
 */
export function writeDLPackStruct(
  bytes: Uint8Array,
  address: bigint,
  versioned: boolean,
  fields: DLPackTensorFields,
  deleter: bigint,
): void {
  if (!(bytes instanceof Uint8Array))
    throw new TypeError(`bytes must be a Uint8Array, got ${describeValue(bytes)}`);
  checkAddress(address, 'address');
  checkBoolean(versioned, 'versioned');
  checkStructFields(fields);
  checkAddress(deleter, 'deleter');
  const needed = structBytes(versioned, fields.shape.length);
  if (bytes.byteLength < needed) {
    throw new RangeError(`bytes holds ${bytes.byteLength} bytes, the struct needs ${needed}`);
  }
  writeStruct(bytes, address, versioned, fields, deleter);
}

/**
 * {@link writeDLPackStruct} for what cumem built itself: an export's fields, made from a source
 * checked on entry, into the struct it just allocated at their size. The checks are not repeated
 * on every export; anything else writing a struct goes through writeDLPackStruct.
 */
export function writeStruct(
  bytes: Uint8Array,
  address: bigint,
  versioned: boolean,
  fields: DLPackTensorFields,
  deleter: bigint,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ndim = fields.shape.length;
  const tensor = versioned ? VersionedField.tensor : LegacyField.tensor;
  const arrays = versioned ? VersionedField.size : LegacyField.size;
  if (versioned) {
    view.setUint32(VersionedField.major, 1, true);
    view.setUint32(VersionedField.minor, 0, true);
    view.setBigUint64(VersionedField.managerCtx, 0n, true);
    view.setBigUint64(VersionedField.deleter, deleter, true);
    view.setBigUint64(VersionedField.flags, fields.readonly ? DLPACK_FLAG_READ_ONLY : 0n, true);
  } else {
    view.setBigUint64(LegacyField.managerCtx, 0n, true);
    view.setBigUint64(LegacyField.deleter, deleter, true);
  }
  view.setBigUint64(tensor + TensorField.data, fields.data, true);
  view.setInt32(tensor + TensorField.deviceType, fields.deviceType, true);
  view.setInt32(tensor + TensorField.deviceId, fields.deviceId, true);
  view.setInt32(tensor + TensorField.ndim, ndim, true);
  view.setUint8(tensor + TensorField.dtypeCode, fields.dtype.code);
  view.setUint8(tensor + TensorField.dtypeBits, fields.dtype.bits);
  view.setUint16(tensor + TensorField.dtypeLanes, fields.dtype.lanes, true);
  view.setBigUint64(tensor + TensorField.shape, address + BigInt(arrays), true);
  view.setBigUint64(tensor + TensorField.strides, address + BigInt(arrays + 8 * ndim), true);
  view.setBigUint64(tensor + TensorField.byteOffset, fields.byteOffset, true);
  for (let axis = 0; axis < ndim; axis++) {
    view.setBigInt64(arrays + 8 * axis, BigInt(fields.shape[axis] as number), true);
    view.setBigInt64(arrays + 8 * (ndim + axis), BigInt(fields.strides[axis] as number), true);
  }
}
