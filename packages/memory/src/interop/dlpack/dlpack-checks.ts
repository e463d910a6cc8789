// Argument checks of the exported DLPack building blocks (exportDLPack, writeDLPackStruct):
// typed errors before any memory is written or any driver call.
import { checkAddress, checkBoolean, checkInteger, describeValue } from '@cumem/core-types';

/** The most axes a struct cumem writes may have (as DLPack importers, cuda.core and NumPy). */
export const DLPACK_MAX_AXES = 32;

export function checkObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null)
    throw new TypeError(`${name} must be an object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

function checkIntegers(value: unknown, name: string): number[] {
  if (!Array.isArray(value) || value.length > DLPACK_MAX_AXES) {
    throw new TypeError(
      `${name} must be an array of at most ${DLPACK_MAX_AXES} integers, got ${describeValue(value)}`,
    );
  }
  return value.map((each, axis) => {
    if (!Number.isSafeInteger(each))
      throw new RangeError(`${name}[${axis}] must be a safe integer, got ${describeValue(each)}`);
    return each as number;
  });
}

export function checkRange(value: unknown, min: number, max: number, name: string): number {
  const integer = checkInteger(value, name);
  if (integer < min || integer > max)
    throw new RangeError(`${name} must be from ${min} to ${max}, got ${integer}`);
  return integer;
}

/** Checks the tensor part of a source or struct: shape, strides, dtype, readonly. */
export function checkTensorShape(value: unknown, name: string): void {
  const fields = checkObject(value, name);
  const shape = checkIntegers(fields.shape, `${name}.shape`);
  const strides = checkIntegers(fields.strides, `${name}.strides`);
  if (shape.length !== strides.length) throw new RangeError(`${name}.shape and .strides differ in length`);
  if (shape.some((extent) => extent < 0)) throw new RangeError(`${name}.shape has a negative extent`);
  const dtype = checkObject(fields.dtype, `${name}.dtype`);
  checkRange(dtype.code, 0, 255, `${name}.dtype.code`);
  checkRange(dtype.bits, 1, 255, `${name}.dtype.bits`);
  checkRange(dtype.lanes, 1, 65535, `${name}.dtype.lanes`);
  checkBoolean(fields.readonly, `${name}.readonly`);
}

/** Checks the struct fields (see DLPackTensorFields). */
export function checkStructFields(value: unknown): void {
  const fields = checkObject(value, 'fields');
  checkAddress(fields.data, 'fields.data');
  checkAddress(fields.byteOffset, 'fields.byteOffset');
  checkRange(fields.deviceType, -(2 ** 31), 2 ** 31 - 1, 'fields.deviceType');
  checkRange(fields.deviceId, -(2 ** 31), 2 ** 31 - 1, 'fields.deviceId');
  checkTensorShape(fields, 'fields');
}
