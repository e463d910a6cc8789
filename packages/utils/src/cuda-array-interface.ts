// The CUDA Array Interface (version 3), with its fields in camelCase: how GPU arrays describe
// themselves to each other (Numba, CuPy, PyTorch use the snake_case original).
import { checkAddress, checkSize, describeValue, PointerAttribute } from '@cumem/core-types';
import { currentDriver } from '@cumem/memory';
import { DTYPE_ITEMSIZE, type DType, dtypeToTypestr, typestrToDType } from './dtype.js';
import { checkSignedInteger } from './layout-validation.js';
import { StridedLayout } from './strided-layout.js';

/** CUDA Array Interface v3 in camelCase. */
export interface CudaArrayInterface {
  /** Elements per axis. */
  readonly shape: readonly number[];
  /** NumPy type string, e.g. `'<f4'`. */
  readonly typestr: string;
  /** `[address of element (0, ..., 0), readonly]`. */
  readonly data: readonly [bigint | number, boolean];
  /** Strides in bytes, or null for C-contiguous. */
  readonly strides?: readonly number[] | null;
  /** Always 3. */
  readonly version: number;
  /** A `CUstream` the consumer must synchronize before using the data (never 0), or absent/null. */
  readonly stream?: bigint | number | null;
}

/** What {@link importInterface} returns. */
export interface ImportedInterface {
  readonly layout: StridedLayout;
  readonly dtype: DType;
  readonly readonly: boolean;
  readonly base: bigint;
  readonly deviceId: number;
  readonly isDeviceAccessible: boolean;
}

/** The interface of a view. */
export function exportInterface(
  layout: StridedLayout,
  dtype: DType,
  pointer: bigint,
  readonly: boolean,
): CudaArrayInterface {
  return Object.freeze({
    shape: layout.shape,
    typestr: dtypeToTypestr(dtype),
    data: Object.freeze([pointer, readonly] as const),
    strides: layout.isContiguousC ? null : layout.stridesInBytes,
    version: 3,
  });
}

/**
 * Reads `owner.cudaArrayInterface`, synchronizing its `stream` when given.
 * @throws TypeError when the object has no interface or a field has the wrong kind; RangeError
 *   for another version, strides not a multiple of the itemsize, or a zero stream.
 */
export function importInterface(owner: unknown): ImportedInterface {
  const cai =
    typeof owner === 'object' && owner !== null
      ? (owner as { cudaArrayInterface?: unknown }).cudaArrayInterface
      : undefined;
  if (typeof cai !== 'object' || cai === null) {
    throw new TypeError(
      `expected a StridedMemoryView, a TypedArray or an object with cudaArrayInterface, got ${describeValue(owner)}`,
    );
  }
  const fields = cai as Record<string, unknown>;
  if (fields.version !== 3)
    throw new RangeError(`cudaArrayInterface.version must be 3, got ${describeValue(fields.version)}`);
  const dtype = typestrToDType(fields.typestr);
  const itemsize = DTYPE_ITEMSIZE[dtype];
  if (!Array.isArray(fields.shape)) throw new TypeError('cudaArrayInterface.shape must be an array');
  const shape = fields.shape.map((extent, i) => checkSize(extent, `cudaArrayInterface.shape[${i}]`));
  const data = fields.data;
  if (!Array.isArray(data) || data.length !== 2 || typeof data[1] !== 'boolean') {
    throw new TypeError('cudaArrayInterface.data must be [pointer, readonly: boolean]');
  }
  const pointer = checkAddress(data[0], 'cudaArrayInterface.data[0]');
  let strides: number[] | null = null;
  if (fields.strides !== undefined && fields.strides !== null) {
    if (!Array.isArray(fields.strides))
      throw new TypeError('cudaArrayInterface.strides must be an array or null');
    if (fields.strides.length !== shape.length)
      throw new RangeError('cudaArrayInterface.strides and shape differ in length');
    strides = fields.strides.map((stride, i) => {
      const bytes = checkSignedInteger(stride, `cudaArrayInterface.strides[${i}]`);
      if (bytes % itemsize !== 0)
        throw new RangeError(`stride ${bytes} bytes is not a multiple of the ${itemsize}-byte ${dtype}`);
      return bytes / itemsize;
    });
  }
  const stream = fields.stream;
  if (stream !== undefined && stream !== null) {
    const handle = checkAddress(stream, 'cudaArrayInterface.stream');
    if (handle === 0n)
      throw new RangeError('cudaArrayInterface.stream must not be 0 (ambiguous in the protocol)');
    currentDriver().streamSynchronize(handle);
  }
  // Negative strides reach before data[0]: put the layout's offset 0 at the lowest element.
  const probe = new StridedLayout(shape, strides, itemsize);
  const lowest = Math.min(0, probe.offsetBounds.min);
  const layout = new StridedLayout(shape, probe.strides, itemsize, { offset: -lowest });
  const base = pointer - BigInt(-lowest * itemsize);
  const volume = layout.volume;
  const deviceId =
    volume === 0 || pointer === 0n
      ? -1
      : currentDriver().pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal);
  return { layout, dtype, readonly: data[1], base, deviceId, isDeviceAccessible: true };
}
