// A full validation of what Arrow JS decoded, written from Arrow's columnar format spec and
// independent of src/record-batch-check.ts: the fuzz tests require every RecordBatch or Table
// read from corrupted device memory to pass it (issue 21). It throws a plain Error (which the
// fuzz tests do not count as a typed error) naming the first broken invariant.
import { type Data, type DataType, type RecordBatch, type Table, Type, UnionMode } from 'apache-arrow';

function broken(path: string, what: string): never {
  throw new Error(`invalid Arrow data at ${path}: ${what}`);
}

function bitSet(bytes: Uint8Array, i: number): boolean {
  return ((bytes[i >> 3] ?? 0) & (1 << (i & 7))) !== 0;
}

function checkOffsetsOf(
  path: string,
  offsets: ArrayLike<number | bigint>,
  from: number,
  count: number,
  limit: number,
): void {
  // Arrow (C++'s validator, and Arrow JS's own writer) allows an empty offsets buffer for an
  // array of no values: there is no first offset to read.
  if (count === 0 && offsets.length === 0) return;
  if (offsets.length < from + count + 1)
    broken(path, `${offsets.length} offsets for ${count} values at ${from}`);
  let previous = Number(offsets[from]);
  if (!(previous >= 0)) broken(path, `first offset ${previous}`);
  for (let i = from + 1; i <= from + count; i++) {
    const next = Number(offsets[i]);
    if (!(next >= previous)) broken(path, `offset ${i} (${next}) below offset ${i - 1} (${previous})`);
    previous = next;
  }
  if (previous > limit) broken(path, `last offset ${previous} past ${limit} values`);
}

/** Validates one Data (and its children and dictionary) by the columnar format's rules. */
export function validateData(data: Data, path = 'column'): void {
  const { length, offset, type } = data;
  const nullCount = data.nullCount;
  if (!(length >= 0 && offset >= 0)) broken(path, `length ${length}, offset ${offset}`);
  if (!(nullCount >= 0 && nullCount <= length)) broken(path, `null count ${nullCount} of ${length}`);
  const end = offset + length;
  const bitmap = data.nullBitmap;
  const valid = (i: number) => !bitmap || bitmap.length === 0 || bitSet(bitmap, offset + i);
  if (nullCount > 0 && type.typeId !== Type.Null) {
    if (!bitmap || bitmap.length * 8 < end)
      broken(path, `validity bitmap of ${bitmap?.length ?? 0} bytes for ${end} slots`);
    let nulls = 0;
    for (let i = 0; i < length; i++) if (!valid(i)) nulls++;
    if (nulls !== nullCount) broken(path, `${nulls} null bits, null count ${nullCount}`);
  }
  const children = data.children as Data[];
  const t = type as DataType & Record<string, unknown>;
  switch (type.typeId) {
    case Type.Null:
      return;
    case Type.Bool:
      if (data.values.length * 8 < end) broken(path, `${data.values.length} value bytes for ${end} booleans`);
      return;
    case Type.Utf8:
    case Type.Binary:
    case Type.LargeUtf8:
    case Type.LargeBinary:
      checkOffsetsOf(path, data.valueOffsets, offset, length, data.values.length);
      return;
    case Type.List:
    case Type.LargeList:
    case Type.Map:
      checkOffsetsOf(path, data.valueOffsets, offset, length, children[0]?.length ?? 0);
      break;
    case Type.FixedSizeList:
      if ((children[0]?.length ?? 0) < end * (t.listSize as number))
        broken(path, 'child shorter than length x listSize');
      break;
    case Type.Struct:
      for (const child of children)
        if (child.length < end) broken(path, `struct child of ${child.length} for ${end}`);
      break;
    case Type.Union: {
      const ids = data.typeIds;
      const allowed = Array.from(t.typeIds as Int32Array);
      if (ids.length < end) broken(path, `${ids.length} type ids for ${end} slots`);
      for (let i = offset; i < end; i++) {
        const child = allowed.indexOf(ids[i] as number);
        if (child < 0) broken(path, `type id ${ids[i]} at ${i}`);
        if (t.mode === UnionMode.Dense) {
          const at = data.valueOffsets[i] as number;
          if (!(at >= 0 && at < (children[child]?.length ?? 0))) broken(path, `dense offset ${at} at ${i}`);
        } else if ((children[child]?.length ?? 0) < end) broken(path, 'sparse child shorter than the union');
      }
      break;
    }
    case Type.Dictionary: {
      const dictionary = data.dictionary;
      if (!dictionary) broken(path, 'no dictionary');
      for (let i = 0; i < length; i++) {
        if (!valid(i)) continue;
        const index = Number(data.values[offset + i]);
        if (!(index >= 0 && index < dictionary.length))
          broken(path, `index ${index} of ${dictionary.length}`);
      }
      for (const chunk of dictionary.data) validateData(chunk, `${path}.dictionary`);
      return;
    }
    default: {
      const stride = (type as { stride?: number }).stride ?? 1;
      if (data.values && data.values.length < end * stride)
        broken(path, `${data.values.length} values for ${end}x${stride}`);
      return;
    }
  }
  children.forEach((child, i) => {
    validateData(child, `${path}.${(type.children?.[i] as { name?: string } | undefined)?.name ?? i}`);
  });
}

/** Validates every column of a RecordBatch or every chunk of a Table. */
export function validateFully(result: RecordBatch | Table): void {
  result.schema.fields.forEach((field, i) => {
    const column = result.getChildAt(i);
    if (!column) broken(field.name, 'missing column');
    if (column.length !== result.numRows)
      broken(field.name, `${column.length} values for ${result.numRows} rows`);
    for (const data of column.data) validateData(data, field.name);
  });
}
