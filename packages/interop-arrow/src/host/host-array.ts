// Typed arrays in page-locked memory: the columns of tables that go to the device at the
// copy engine's full speed. Arrow JS builds vectors over typed arrays without copying them
// (tableFromArrays, makeVector), so a table built over these arrays has its column bodies in
// pinned memory, and tableToDevice copies them with one DMA each, no CPU copy on the way.

import { checkSize, describeValue } from '@cumem/core-types';
import { type NewHostBufferOptions, newHostBuffer } from './host-buffer.js';

/** The typed array types {@link newHostArray} makes (every fixed-width Arrow primitive's storage). */
export type HostArrayConstructor =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Uint8ClampedArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor;

const constructors: readonly HostArrayConstructor[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];

/**
 * A new typed array of `length` elements (contents undefined until written) in new page-locked
 * host memory: a {@link HostBuffer} of `length * ArrayType.BYTES_PER_ELEMENT` bytes, kept alive
 * by the array (and by any view of its memory, such as an Arrow vector built over it). A cumem
 * extension (pyarrow.cuda has none): build Arrow columns over these arrays and
 * `tableToDevice` copies each column straight from them at the pinned copy limit.
 *
 * ```ts
 * const ids = newHostArray(Int32Array, n);
 * const scores = newHostArray(Float64Array, n);
 * // ... fill them ...
 * const table = tableFromArrays({ id: ids, score: scores }); // zero-copy: columns stay pinned
 * ```
 *
 * `hostBufferOf(array)` gives the HostBuffer (to `close()` it early; the array must not be used
 * afterwards). Errors: `ArrayType` not a typed array constructor → TypeError; `length` not a
 * non-negative safe integer → TypeError / RangeError; all before any driver call.
 * @param ArrayType e.g. `Int32Array`, `Float64Array`, `BigInt64Array`.
 * @param length elements; 0 gives an empty array without allocating.
 * @param options where and how the memory is allocated (see {@link newHostBuffer}); default device 0, `cuMemHostAlloc`.
 */
export function newHostArray<T extends HostArrayConstructor>(
  ArrayType: T,
  length: number,
  options?: NewHostBufferOptions,
): InstanceType<T> {
  if (!constructors.includes(ArrayType)) {
    throw new TypeError(`ArrayType must be a typed array constructor, got ${describeValue(ArrayType)}`);
  }
  checkSize(length, 'length');
  const size = length * ArrayType.BYTES_PER_ELEMENT;
  if (!Number.isSafeInteger(size)) {
    throw new RangeError(`length ${length} of ${ArrayType.name} is too large (${size} bytes)`);
  }
  const bytes = newHostBuffer(size, options).bytes;
  // A HostBuffer's memory is an external ArrayBuffer, never shared.
  return new ArrayType(bytes.buffer as ArrayBuffer, bytes.byteOffset, length) as InstanceType<T>;
}
