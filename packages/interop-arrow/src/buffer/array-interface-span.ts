// The byte span a `cudaArrayInterface` (CUDA array interface v3, camelCase) covers, so that
// `bufferFromObject` can view it as one contiguous range, including bytes a strided view skips
// (as pyarrow's buffer_from_object does).

import { checkAddress, checkSize, describeValue } from '@cumem/core-types';

/** The fields of a CUDA array interface this package reads. */
export interface CudaArrayInterface {
  /** Extent of each dimension, in elements. */
  readonly shape: readonly number[];
  /** Byte strides per dimension; null/absent = dense C order. */
  readonly strides?: readonly number[] | null;
  /** NumPy type string, e.g. `'<f8'`, `'|u1'`. */
  readonly typestr: string;
  /** `[address, readonly]`; a null address means an empty array. */
  readonly data: readonly [bigint | number | null, boolean];
  readonly version?: number;
}

/** Where the bytes of an array interface are. */
export interface ArrayInterfaceSpan {
  readonly address: bigint;
  readonly size: number;
  readonly readonly: boolean;
}

/** Reads and checks `obj.cudaArrayInterface`. @throws TypeError when malformed. */
export function arrayInterfaceSpan(description: unknown): ArrayInterfaceSpan {
  const d = description as Partial<CudaArrayInterface> | null;
  if (typeof d !== 'object' || d === null || !Array.isArray(d.shape) || !Array.isArray(d.data)) {
    throw new TypeError(
      `cudaArrayInterface must have shape and data arrays, got ${describeValue(description)}`,
    );
  }
  const itemsize = typeof d.typestr === 'string' ? Number.parseInt(d.typestr.slice(2), 10) : Number.NaN;
  if (!Number.isSafeInteger(itemsize) || itemsize <= 0) {
    throw new TypeError(`cudaArrayInterface.typestr must look like '<f8', got ${describeValue(d.typestr)}`);
  }
  const readonly = d.data[1] === true;
  const shape = d.shape.map((extent, i) => checkSize(extent, `cudaArrayInterface.shape[${i}]`));
  if (d.data[0] === null || d.data[0] === undefined || shape.some((extent) => extent === 0)) {
    return { address: 0n, size: 0, readonly };
  }
  const address = checkAddress(d.data[0], 'cudaArrayInterface.data[0]');
  const strides = d.strides;
  if (strides === null || strides === undefined) {
    return { address, size: shape.reduce((a, b) => a * b, itemsize), readonly };
  }
  if (!Array.isArray(strides) || strides.length !== shape.length) {
    throw new TypeError('cudaArrayInterface.strides must have one entry per dimension');
  }
  let low = 0;
  let high = 0;
  shape.forEach((extent, i) => {
    const stride = strides[i] as number;
    if (!Number.isSafeInteger(stride))
      throw new TypeError(`cudaArrayInterface.strides[${i}] must be an integer`);
    const reach = stride * (extent - 1);
    if (reach < 0) low += reach;
    else high += reach;
  });
  return { address: address + BigInt(low), size: high - low + itemsize, readonly };
}
