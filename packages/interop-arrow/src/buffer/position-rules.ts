// The position/length rules of pyarrow.cuda's CudaBuffer, as pure functions so that every
// entry point (copies, slices, reader, writer) refuses bad input the same way, before any
// driver call. pyarrow raises ValueError; here a wrong kind of value is a TypeError and a
// value out of range a RangeError, as everywhere in cumem.

import { checkSize, describeValue } from '@cumem/core-types';

/**
 * A position inside a buffer of `size` bytes: an integer in [0, size].
 * @throws TypeError when not a number; RangeError ("position out of range") otherwise.
 */
export function checkPosition(position: unknown, size: number, name = 'position'): number {
  if (typeof position === 'number' && Number.isSafeInteger(position) && (position < 0 || position > size)) {
    throw new RangeError(`${name} out of range: ${position} is not in [0, ${size}]`);
  }
  const value = checkSize(position, name);
  if (value > size) throw new RangeError(`${name} out of range: ${value} is not in [0, ${size}]`);
  return value;
}

/**
 * A byte count where -1 means "as many as possible" (pyarrow's default).
 * @returns the count, or -1.
 */
export function checkByteCount(nbytes: unknown, name = 'nbytes'): number {
  if (nbytes === -1) return -1;
  if (typeof nbytes === 'number' && Number.isSafeInteger(nbytes) && nbytes < 0) {
    throw new RangeError(`${name} must be -1 (all) or a non-negative integer, got ${nbytes}`);
  }
  return checkSize(nbytes, name);
}

/** `copyToHost` into a new host array: how many bytes to copy from `position`. */
export function resolveCopyToNewHost(
  size: number,
  position: unknown,
  nbytes: unknown,
): { position: number; nbytes: number } {
  // A new array is made to fit: the given-array rules with no limit on the destination.
  return resolveCopyToGivenHost(size, Number.POSITIVE_INFINITY, position, nbytes);
}

/** `copyToHost` into a given host array of `destinationSize` bytes. */
export function resolveCopyToGivenHost(
  size: number,
  destinationSize: number,
  position: unknown,
  nbytes: unknown,
): { position: number; nbytes: number } {
  const start = checkPosition(position, size);
  const count = checkByteCount(nbytes);
  const available = size - start;
  if (count === -1) return { position: start, nbytes: Math.min(available, destinationSize) };
  if (count > destinationSize) {
    throw new RangeError(
      `requested copy does not fit into host buffer: ${count} bytes, the host buffer has ${destinationSize}`,
    );
  }
  if (count > available) {
    throw new RangeError(
      `requested more to copy than available from device buffer: ${count} bytes from position ${start}, ${available} available`,
    );
  }
  return { position: start, nbytes: count };
}

/**
 * `copyFromHost` / `copyFromDevice`: `sourceSize` bytes into a device buffer of `size` bytes at
 * `position`. `source` names the source side in messages (`'host buffer'` or `'device buffer'`).
 */
export function resolveCopyInto(
  size: number,
  sourceSize: number,
  position: unknown,
  nbytes: unknown,
  source: 'host buffer' | 'device buffer',
): { position: number; nbytes: number } {
  const start = checkPosition(position, size);
  const count = checkByteCount(nbytes);
  const room = size - start;
  if (count === -1) return { position: start, nbytes: Math.min(room, sourceSize) };
  if (count > sourceSize) {
    throw new RangeError(
      `requested more to copy than available from ${source}: ${count} bytes, the source has ${sourceSize}`,
    );
  }
  if (count > room) {
    throw new RangeError(
      `requested more to copy than available in device buffer: ${count} bytes at position ${start}, ${room} bytes of room`,
    );
  }
  return { position: start, nbytes: count };
}

/**
 * `slice(offset, length)`: zero-copy view bounds. `offset` must be < size (or 0 for an empty
 * buffer); a `length` past the end is clamped to what is available, as in pyarrow.
 */
export function resolveSlice(
  size: number,
  offset: unknown,
  length: unknown,
): { offset: number; length: number } {
  const start = checkPosition(offset, size, 'offset');
  if (size > 0 && start === size) {
    throw new RangeError(`offset out of range: ${start} is not in [0, ${size})`);
  }
  const available = size - start;
  if (length === undefined || length === null) return { offset: start, length: available };
  const wanted = checkSize(length, 'length');
  return { offset: start, length: Math.min(wanted, available) };
}

/**
 * `bufferFromData(data, { offset, size })`: the byte range of a source of `sourceSize` bytes.
 * `size` -1 (default) means "to the end".
 */
export function resolveDataRange(
  sourceSize: number,
  offset: unknown,
  size: unknown,
): { offset: number; size: number } {
  const start = checkSize(offset, 'offset');
  if (sourceSize > 0 ? start >= sourceSize : start > 0) {
    throw new RangeError(`offset out of range: ${start} is not in [0, ${sourceSize})`);
  }
  const count = checkByteCount(size, 'size');
  if (count === -1) return { offset: start, size: sourceSize - start };
  if (start + count > sourceSize) {
    throw new RangeError(
      `requested larger slice than available in the source: ${count} bytes from offset ${start} of ${sourceSize}`,
    );
  }
  return { offset: start, size: count };
}

/**
 * `seek(offset, whence)` of the reader and writer: 0 = from the start, 1 = from the current
 * position, 2 = from the end. The result must lie in [0, size].
 */
export function resolveSeek(offset: unknown, whence: unknown, current: number, size: number): number {
  if (whence !== 0 && whence !== 1 && whence !== 2) {
    if (typeof whence !== 'number')
      throw new TypeError(`whence must be 0, 1 or 2, got ${describeValue(whence)}`);
    throw new RangeError(`whence must be 0 (start), 1 (current) or 2 (end), got ${whence}`);
  }
  if (typeof offset !== 'number')
    throw new TypeError(`offset must be an integer number, got ${typeof offset}`);
  if (!Number.isSafeInteger(offset)) throw new RangeError(`offset must be a safe integer, got ${offset}`);
  const base = whence === 0 ? 0 : whence === 1 ? current : size;
  const target = base + offset;
  if (target < 0 || target > size) {
    throw new RangeError(`position out of range: seeking to ${target}, the buffer has ${size} bytes`);
  }
  return target;
}
