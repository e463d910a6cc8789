// Element types of a StridedMemoryView: their sizes, their CUDA Array Interface `typestr`, and
// the TypedArray kinds they come from.
import { describeValue } from '@cumem/core-types';

/** Element types a {@link StridedMemoryView} can carry. */
export type DType =
  | 'bool'
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
  | 'float64'
  | 'complex64'
  | 'complex128';

/** DLPack's `DLDataTypeCode` values (dlpack.h) of the dtypes cumem carries. */
export const DLDataTypeCode = Object.freeze({
  Int: 0,
  UInt: 1,
  Float: 2,
  BFloat: 4,
  Complex: 5,
  Bool: 6,
} as const);

/** One dtype in every format that names it. */
export interface DTypeFormats {
  /** Bytes per element. */
  readonly itemsize: number;
  /** CUDA Array Interface / NumPy `typestr` (little-endian). */
  readonly typestr: string;
  /** DLPack `DLDataType`: type code, bits per lane, lanes (always 1 here). */
  readonly dlpack: { readonly code: number; readonly bits: number; readonly lanes: number };
}

function formats(itemsize: number, typestr: string, code: number): DTypeFormats {
  return Object.freeze({ itemsize, typestr, dlpack: Object.freeze({ code, bits: itemsize * 8, lanes: 1 }) });
}

const { Int, UInt, Float, BFloat, Complex, Bool } = DLDataTypeCode;

/**
 * The one table of dtypes: itemsize, CUDA Array Interface `typestr` and DLPack type of each.
 * bfloat16 has no NumPy typestr; '<V2' (two opaque bytes) is what exporters use for it, so a
 * consumer that does not know bfloat16 still gets the right itemsize. bool is one byte, as in
 * NumPy and DLPack (`kDLBool`, 8 bits).
 */
export const DTYPES: Readonly<Record<DType, DTypeFormats>> = Object.freeze({
  bool: formats(1, '|b1', Bool),
  uint8: formats(1, '|u1', UInt),
  int8: formats(1, '|i1', Int),
  uint16: formats(2, '<u2', UInt),
  int16: formats(2, '<i2', Int),
  uint32: formats(4, '<u4', UInt),
  int32: formats(4, '<i4', Int),
  uint64: formats(8, '<u8', UInt),
  int64: formats(8, '<i8', Int),
  float16: formats(2, '<f2', Float),
  bfloat16: formats(2, '<V2', BFloat),
  float32: formats(4, '<f4', Float),
  float64: formats(8, '<f8', Float),
  complex64: formats(8, '<c8', Complex),
  complex128: formats(16, '<c16', Complex),
});

/** Bytes per element of each {@link DType} (from {@link DTYPES}). */
export const DTYPE_ITEMSIZE: Readonly<Record<DType, number>> = Object.freeze(
  Object.fromEntries(Object.entries(DTYPES).map(([name, f]) => [name, f.itemsize])) as Record<DType, number>,
);

/**
 * The dtype of a DLPack `DLDataType`.
 * @throws TypeError for a (code, bits, lanes) no dtype matches (vector lanes, float8, unknown codes).
 */
export function dlpackToDType(code: number, bits: number, lanes: number): DType {
  for (const [dtype, known] of Object.entries(DTYPES) as [DType, DTypeFormats][]) {
    const t = known.dlpack;
    if (t.code === code && t.bits === bits && t.lanes === lanes) return dtype;
  }
  throw new TypeError(
    `DLPack dtype (code ${describeValue(code)}, bits ${describeValue(bits)}, lanes ${describeValue(lanes)}) has no matching cumem dtype`,
  );
}

/** The CUDA Array Interface `typestr` of a dtype (little-endian). */
export function dtypeToTypestr(dtype: DType): string {
  return DTYPES[dtype].typestr;
}

/**
 * The dtype of a CUDA Array Interface `typestr`. Byte order `<` or `|` (and `=` on little-endian hosts).
 * @throws TypeError for a non-string; RangeError for a typestr no dtype matches (e.g. big-endian).
 */
export function typestrToDType(typestr: unknown): DType {
  if (typeof typestr !== 'string')
    throw new TypeError(`typestr must be a string, got ${describeValue(typestr)}`);
  const normalized =
    (typestr.length === 3 || typestr.length === 4) && (typestr[0] === '=' || typestr[0] === '|')
      ? `<${typestr.slice(1)}`
      : typestr;
  for (const [dtype, { typestr: known }] of Object.entries(DTYPES) as [DType, DTypeFormats][]) {
    if (known === normalized || `<${known.slice(1)}` === normalized) return dtype;
  }
  throw new RangeError(
    `typestr ${JSON.stringify(typestr)} has no matching dtype (little-endian integers, float16/32/64, complex64/128, '|b1' for bool, '<V2' for bfloat16)`,
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
