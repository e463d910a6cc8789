// The per-value invariants of a record batch that Arrow JS relies on and never checks: offsets
// (non-negative, non-decreasing, within their child or data), a validity bitmap that agrees
// with its null count, union type ids and dense-union offsets, dictionary indices and the
// references of binary/string views. Of 1,000 single-byte corruptions of a valid message in
// device memory, 55 came back as a RecordBatch whose List offsets descended or pointed past
// the child values (issue 21); record-batch-check.ts walks the layout and calls these on the
// bytes of each buffer before Arrow JS sees them.

/** Throws the RangeError of a malformed record batch. */
export function malformed(what: string): never {
  throw new RangeError(`malformed IPC record batch: ${what}`);
}

/** A buffer's bytes, as a view (little-endian readers). */
export function regionView(body: Uint8Array, offset: number, length: number): DataView {
  return new DataView(body.buffer, body.byteOffset + offset, length);
}

/**
 * Checks `length + 1` offsets of `width` bytes: the first non-negative, each at least the one
 * before. @returns the last: how many child values or data bytes the column uses.
 */
export function checkOffsets(view: DataView, length: number, width: 4 | 8, path: string): number {
  const read = (i: number) =>
    width === 4 ? view.getInt32(i * 4, true) : Number(view.getBigInt64(i * 8, true));
  let previous = read(0);
  if (!Number.isSafeInteger(previous) || previous < 0) malformed(`${path} offsets start at ${previous}`);
  for (let i = 1; i <= length; i++) {
    const next = read(i);
    if (!Number.isSafeInteger(next) || next < previous) {
      malformed(`${path} offset ${i} is ${next}, after ${previous}: offsets must not descend`);
    }
    previous = next;
  }
  return previous;
}

/** True when slot `i` is valid: no bitmap (null count 0) means every slot is. */
export type ValidSlot = (i: number) => boolean;

/**
 * The validity of each slot, after checking that the bitmap's zero bits over `length` slots
 * number exactly `nullCount` (Arrow JS reports the stored count and reads the bitmap).
 */
export function checkValidity(
  bitmap: Uint8Array | null,
  length: number,
  nullCount: number,
  path: string,
): ValidSlot {
  if (nullCount === 0 || bitmap === null) return () => true;
  let nulls = 0;
  for (let i = 0; i < length; i++) if ((bitmap[i >> 3]! & (1 << (i & 7))) === 0) nulls++;
  if (nulls !== nullCount)
    malformed(`${path} validity bitmap has ${nulls} nulls, its null count says ${nullCount}`);
  return (i) => (bitmap[i >> 3]! & (1 << (i & 7))) !== 0;
}

/** Union type ids: each one of `typeIds`. @returns the child index of each slot. */
export function checkUnionTypeIds(
  ids: Uint8Array,
  length: number,
  typeIds: ArrayLike<number>,
  path: string,
): Int32Array {
  const childOf = new Map<number, number>();
  for (let c = 0; c < typeIds.length; c++) childOf.set(typeIds[c]!, c);
  const children = new Int32Array(length);
  for (let i = 0; i < length; i++) {
    const id = (ids[i]! << 24) >> 24;
    const child = childOf.get(id);
    if (child === undefined) malformed(`${path} slot ${i} has union type id ${id}, not one of the type's`);
    children[i] = child;
  }
  return children;
}

/** Dense union offsets: each non-negative and inside the child its type id selects. */
export function checkDenseOffsets(
  view: DataView,
  children: Int32Array,
  childLengths: readonly number[],
  path: string,
): void {
  for (let i = 0; i < children.length; i++) {
    const offset = view.getInt32(i * 4, true);
    const child = children[i]!;
    if (offset < 0 || offset >= childLengths[child]!) {
      malformed(
        `${path} slot ${i} points at value ${offset} of child ${child}, which has ${childLengths[child]}`,
      );
    }
  }
}

/** Dictionary indices of valid slots: integers of `bitWidth` bits in [0, dictionaryLength). */
export function checkDictionaryIndices(
  view: DataView,
  length: number,
  bitWidth: number,
  signed: boolean,
  valid: ValidSlot,
  dictionaryLength: number,
  path: string,
): void {
  const read = indexReader(view, bitWidth, signed);
  for (let i = 0; i < length; i++) {
    if (!valid(i)) continue;
    const index = read(i);
    if (index < 0 || index >= dictionaryLength) {
      malformed(
        `${path} slot ${i} has dictionary index ${index}, the dictionary has ${dictionaryLength} values`,
      );
    }
  }
}

function indexReader(view: DataView, bitWidth: number, signed: boolean): (i: number) => number {
  switch (bitWidth) {
    case 8:
      return signed ? (i) => view.getInt8(i) : (i) => view.getUint8(i);
    case 16:
      return signed ? (i) => view.getInt16(i * 2, true) : (i) => view.getUint16(i * 2, true);
    case 32:
      return signed ? (i) => view.getInt32(i * 4, true) : (i) => view.getUint32(i * 4, true);
    default:
      return signed
        ? (i) => Number(view.getBigInt64(i * 8, true))
        : (i) => Number(view.getBigUint64(i * 8, true));
  }
}

/**
 * Binary/string views of valid slots: a length that is not negative and, past the 12 inline
 * bytes, a variadic buffer index and offset whose range lies inside that buffer.
 */
export function checkViews(
  view: DataView,
  length: number,
  valid: ValidSlot,
  dataLengths: readonly number[],
  path: string,
): void {
  for (let i = 0; i < length; i++) {
    if (!valid(i)) continue;
    const size = view.getInt32(i * 16, true);
    if (size < 0) malformed(`${path} slot ${i} has a view of ${size} bytes`);
    if (size <= 12) continue;
    const buffer = view.getInt32(i * 16 + 8, true);
    const offset = view.getInt32(i * 16 + 12, true);
    if (buffer < 0 || buffer >= dataLengths.length || offset < 0 || offset + size > dataLengths[buffer]!) {
      malformed(`${path} slot ${i} views [${offset}, ${offset}+${size}) of data buffer ${buffer}`);
    }
  }
}
