// Element types of a StridedMemoryView: their sizes, their CUDA Array Interface `typestr`, and
// the TypedArray kinds they come from.
import { describeValue } from '@cumem/core-types';

/** Element types a {@link StridedMemoryView} can carry. */
export type DType =
  | 'uint8'
  | 'int8'
  | 'uint16'
  | 'int16'
  | 'uint32'
  | 'int32'
  | 'uint64'
  | 'int64'
  | 'float16'
  | 'bfloat16'
  | 'float32'
  | 'float64';

/** Bytes per element of each {@link DType}. */
export const DTYPE_ITEMSIZE: Readonly<Record<DType, number>> = Object.freeze({
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  uint32: 4,
  int32: 4,
  uint64: 8,
  int64: 8,
  float16: 2,
  bfloat16: 2,
  float32: 4,
  float64: 8,
});

// bfloat16 has no NumPy typestr; '<V2' (two opaque bytes) is what exporters use for it, so a
// consumer that does not know bfloat16 still gets the right itemsize.
const TYPESTR: Readonly<Record<DType, string>> = {
  uint8: '|u1',
  int8: '|i1',
  uint16: '<u2',
  int16: '<i2',
  uint32: '<u4',
  int32: '<i4',
  uint64: '<u8',
  int64: '<i8',
  float16: '<f2',
  bfloat16: '<V2',
  float32: '<f4',
  float64: '<f8',
};

/** The CUDA Array Interface `typestr` of a dtype (little-endian). */
export function dtypeToTypestr(dtype: DType): string {
  return TYPESTR[dtype];
}

/**
 * The dtype of a CUDA Array Interface `typestr`. Byte order `<` or `|` (and `=` on little-endian hosts).
 * @throws TypeError for a non-string; RangeError for a typestr no dtype matches (e.g. big-endian, complex).
 */
export function typestrToDType(typestr: unknown): DType {
  if (typeof typestr !== 'string')
    throw new TypeError(`typestr must be a string, got ${describeValue(typestr)}`);
  const normalized =
    typestr.length === 3 && (typestr[0] === '=' || typestr[0] === '|') ? `<${typestr.slice(1)}` : typestr;
  for (const [dtype, known] of Object.entries(TYPESTR) as [DType, string][]) {
    if (known === normalized || `<${known.slice(1)}` === normalized) return dtype;
  }
  throw new RangeError(
    `typestr ${JSON.stringify(typestr)} has no matching dtype (little-endian integers, float16/32/64, '<V2' for bfloat16)`,
  );
}

/** True for one of the {@link DType} names. */
export function isDType(value: unknown): value is DType {
  return typeof value === 'string' && Object.hasOwn(DTYPE_ITEMSIZE, value);
}

/** Checks a dtype argument. @throws TypeError for anything else. */
export function checkDType(value: unknown, name = 'dtype'): DType {
  if (!isDType(value)) {
    throw new TypeError(
      `${name} must be one of ${Object.keys(DTYPE_ITEMSIZE).join(', ')}; got ${describeValue(value)}`,
    );
  }
  return value;
}

/** The dtype assumed for an itemsize when none is given: the unsigned integer of that size. */
export function defaultDTypeFor(itemsize: number): DType {
  switch (itemsize) {
    case 1:
      return 'uint8';
    case 2:
      return 'uint16';
    case 4:
      return 'uint32';
    case 8:
      return 'uint64';
    default:
      throw new TypeError(`no dtype has itemsize ${itemsize}: pass a layout with itemsize 1, 2, 4 or 8`);
  }
}

/**
 * The dtype of a TypedArray (by its constructor name, so arrays from another realm work too).
 * @throws TypeError for a DataView or a non-TypedArray.
 */
export function dtypeOfTypedArray(view: unknown): DType {
  if (!ArrayBuffer.isView(view) || view instanceof DataView) {
    throw new TypeError(`expected a TypedArray (Float32Array, Int32Array, ...), got ${describeValue(view)}`);
  }
  switch (view.constructor.name) {
    case 'Uint8Array':
    case 'Buffer':
    case 'Uint8ClampedArray':
      return 'uint8';
    case 'Int8Array':
      return 'int8';
    case 'Uint16Array':
      return 'uint16';
    case 'Int16Array':
      return 'int16';
    case 'Uint32Array':
      return 'uint32';
    case 'Int32Array':
      return 'int32';
    case 'BigUint64Array':
      return 'uint64';
    case 'BigInt64Array':
      return 'int64';
    case 'Float16Array':
      return 'float16';
    case 'Float32Array':
      return 'float32';
    case 'Float64Array':
      return 'float64';
    default:
      throw new TypeError(`unsupported TypedArray kind ${view.constructor.name}`);
  }
}
