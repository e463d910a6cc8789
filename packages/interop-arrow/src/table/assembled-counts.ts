// How many field nodes and buffers Arrow JS's VectorAssembler writes for one column chunk,
// read off its type (and, for views, its variadic buffer count) instead of assembling the
// column a second time: the layout needs each column's share of the batch's buffer list.
// Mirrors apache-arrow's visitor/vectorassembler (21.x): every array a node, every array but
// Null and Union a validity buffer; a dictionary column is its indices.
import { type Data, DataType, Type, UnionMode } from 'apache-arrow';

/** Field nodes and buffers of one column chunk in a record batch message. */
export interface ColumnCounts {
  readonly nodes: number;
  readonly buffers: number;
}

function flatBuffers(data: Data): number | undefined {
  switch (data.typeId) {
    case Type.Bool:
    case Type.Int:
    case Type.Float:
    case Type.Decimal:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Interval:
    case Type.Duration:
    case Type.FixedSizeBinary:
      return 1;
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary:
      return 2; // offsets, data
    case Type.Utf8View:
    case Type.BinaryView:
      return 1 + (data.variadicBuffers?.length ?? 0); // views, then each data buffer
    default:
      return undefined;
  }
}

function count(data: Data, total: { nodes: number; buffers: number }): void {
  const type = data.type as DataType;
  if (DataType.isDictionary(type)) {
    total.nodes += 1;
    total.buffers += 2; // validity, indices
    return;
  }
  total.nodes += 1;
  if (DataType.isNull(type)) return;
  if (!DataType.isUnion(type)) total.buffers += 1; // validity
  const flat = flatBuffers(data);
  if (flat !== undefined) {
    total.buffers += flat;
    return;
  }
  switch (data.typeId) {
    case Type.List:
    case Type.LargeList:
    case Type.Map:
      total.buffers += 1; // offsets
      break;
    case Type.Union:
      total.buffers += (type as DataType & { mode: UnionMode }).mode === UnionMode.Dense ? 2 : 1;
      break;
    case Type.FixedSizeList:
    case Type.Struct:
      break;
    default:
      throw new TypeError(`no assembled layout known for ${String(type)}`);
  }
  const children = (type.children ?? []).map((_, i) => data.children[i]).filter(Boolean) as Data[];
  for (const child of children) count(child, total);
}

/** The nodes and buffers Arrow JS writes for each column chunk of `columns`. */
export function assembledCounts(columns: readonly Data[]): ColumnCounts[] {
  return columns.map((column) => {
    const total = { nodes: 0, buffers: 0 };
    count(column, total);
    return total;
  });
}
