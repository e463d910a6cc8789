// Checks a record batch message's field nodes and buffer regions against the schema and the
// body before Arrow JS builds arrays from them. Arrow JS trusts them: a FieldNode length larger
// than the column's buffers makes it pad the column with a fresh null bitmap of that length (a
// flipped byte is a fatal heap OOM), and a buffer region past the body is silently truncated.
// The walk mirrors Arrow JS's VectorLoader (which nodes and buffers each type consumes, in IPC
// order) and requires every length to fit in the bytes its buffers really hold.

import { type DataType, type Field, MetadataVersion, type Schema, Type, UnionMode } from 'apache-arrow';

/** What Arrow JS decoded from a RecordBatch message header. */
export interface RecordBatchHeader {
  readonly length: number;
  readonly nodes: readonly { readonly length: number; readonly nullCount: number }[];
  readonly buffers: readonly { readonly offset: number; readonly length: number }[];
  readonly variadicBufferCounts: readonly number[];
}

function malformed(what: string): never {
  throw new RangeError(`malformed IPC record batch: ${what}`);
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

// Bytes per value of the fixed-width types (Arrow's columnar format), or undefined.
function valueBytes(type: DataType): number | undefined {
  const t = type as DataType & Record<string, number>;
  switch (type.typeId) {
    case Type.Int:
    case Type.Time:
    case Type.Decimal:
      return (t.bitWidth as number) / 8;
    case Type.Float:
      return 2 ** ((t.precision as number) + 1);
    case Type.Date:
      return t.unit === 0 ? 4 : 8;
    case Type.Timestamp:
    case Type.Duration:
      return 8;
    case Type.Interval:
      return [4, 8, 16][t.unit as number];
    case Type.FixedSizeBinary:
      return t.byteWidth as number;
    default:
      return undefined;
  }
}

class BatchWalker {
  #node = 0;
  #buffer = 0;
  #variadic = 0;

  constructor(
    readonly header: RecordBatchHeader,
    readonly body: Uint8Array,
    readonly metadataVersion: MetadataVersion,
  ) {}

  finish(): void {
    const { nodes, buffers } = this.header;
    if (this.#node !== nodes.length) malformed(`${nodes.length} field nodes, the schema has ${this.#node}`);
    if (this.#buffer !== buffers.length)
      malformed(`${buffers.length} buffers, the schema needs ${this.#buffer}`);
  }

  #nextNode(path: string): { length: number; nullCount: number } {
    const node = this.header.nodes[this.#node++];
    if (!node) malformed(`too few field nodes for the schema (at ${path})`);
    if (!isCount(node.length) || !isCount(node.nullCount) || node.nullCount > node.length) {
      malformed(`field node of ${path}: length ${node.length}, null count ${node.nullCount}`);
    }
    return node;
  }

  #nextBuffer(path: string, needed: number): { offset: number; length: number } {
    const index = this.#buffer++;
    const region = this.header.buffers[index];
    if (!region) malformed(`too few buffers for the schema (at ${path})`);
    const { offset, length } = region;
    if (!isCount(offset) || !isCount(length) || offset + length > this.body.byteLength) {
      malformed(
        `buffer ${index} (${path}) spans [${offset}, ${offset}+${length}) of a ${this.body.byteLength}-byte body`,
      );
    }
    if (length < needed)
      malformed(`buffer ${index} (${path}) has ${length} bytes, its values need ${needed}`);
    return region;
  }

  #validity(path: string, length: number, nullCount: number): void {
    this.#nextBuffer(`${path} validity`, nullCount > 0 ? Math.ceil(length / 8) : 0);
  }

  // Offsets of a variable-size layout: (length + 1) of them, ascending from a non-negative
  // start. @returns the last offset: how many child values or data bytes the column uses.
  #offsets(path: string, length: number, width: 4 | 8): number {
    const region = this.#nextBuffer(`${path} offsets`, length === 0 ? 0 : (length + 1) * width);
    if (length === 0) return 0;
    const view = new DataView(this.body.buffer, this.body.byteOffset + region.offset, region.length);
    const read = (i: number) =>
      width === 4 ? view.getInt32(i * 4, true) : Number(view.getBigInt64(i * 8, true));
    const first = read(0);
    const last = read(length);
    if (!isCount(first) || !isCount(last) || last < first) {
      malformed(`${path} offsets run from ${first} to ${last}`);
    }
    return last;
  }

  /** A top-level column: exactly the batch's length. */
  column(field: Field): void {
    this.#type(field.type, field.name, this.header.length, true);
  }

  // `atLeast`: the values the parent needs from this column (all of them when `exact`).
  #type(type: DataType, path: string, atLeast: number, exact = false): void {
    const { length, nullCount } = this.#nextNode(path);
    if (exact ? length !== atLeast : length < atLeast) {
      malformed(`${path} has ${length} values, ${exact ? 'the batch has' : 'its parent needs'} ${atLeast}`);
    }
    const children = (type.children ?? []) as Field[];
    switch (type.typeId) {
      case Type.Null:
        return;
      case Type.Bool:
        this.#validity(path, length, nullCount);
        this.#nextBuffer(`${path} values`, Math.ceil(length / 8));
        return;
      case Type.Utf8:
      case Type.Binary:
      case Type.LargeUtf8:
      case Type.LargeBinary: {
        this.#validity(path, length, nullCount);
        const large = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
        const used = this.#offsets(path, length, large ? 8 : 4);
        this.#nextBuffer(`${path} data`, used);
        return;
      }
      case Type.Utf8View:
      case Type.BinaryView: {
        this.#validity(path, length, nullCount);
        this.#nextBuffer(`${path} views`, length * 16);
        const count = this.header.variadicBufferCounts[this.#variadic++] ?? 0;
        if (!isCount(count)) malformed(`${path} has ${count} variadic buffers`);
        for (let i = 0; i < count; i++) this.#nextBuffer(`${path} data ${i}`, 0);
        return;
      }
      case Type.List:
      case Type.LargeList:
      case Type.Map: {
        this.#validity(path, length, nullCount);
        const used = this.#offsets(path, length, type.typeId === Type.LargeList ? 8 : 4);
        this.#children(children, path, used);
        return;
      }
      case Type.FixedSizeList: {
        this.#validity(path, length, nullCount);
        this.#children(children, path, length * (type as DataType & { listSize: number }).listSize);
        return;
      }
      case Type.Struct:
        this.#validity(path, length, nullCount);
        this.#children(children, path, length);
        return;
      case Type.Union: {
        if (this.metadataVersion < MetadataVersion.V5) this.#validity(path, length, nullCount);
        this.#nextBuffer(`${path} type ids`, length);
        const dense = (type as DataType & { mode: UnionMode }).mode === UnionMode.Dense;
        if (dense) this.#nextBuffer(`${path} offsets`, length * 4);
        this.#children(children, path, dense ? 0 : length);
        return;
      }
      case Type.Dictionary: {
        // The column holds indices; the dictionary's values come in dictionary batches.
        this.#validity(path, length, nullCount);
        const indices = valueBytes((type as DataType & { indices: DataType }).indices) ?? Number.NaN;
        this.#nextBuffer(`${path} indices`, length * indices);
        return;
      }
      default: {
        const bytes = valueBytes(type);
        if (bytes === undefined || !Number.isFinite(bytes)) {
          throw new TypeError(`readRecordBatch cannot check columns of type ${String(type)} (${path})`);
        }
        this.#validity(path, length, nullCount);
        this.#nextBuffer(`${path} values`, length * bytes);
      }
    }
  }

  #children(children: readonly Field[], path: string, atLeast: number): void {
    for (const child of children) this.#type(child.type, `${path}.${child.name}`, atLeast);
  }
}

/**
 * Throws RangeError unless the batch's field nodes and buffers are exactly those `schema`
 * needs, every buffer lies inside `body`, every node's length fits its buffers and its
 * parent's needs, and every top-level column has the batch's length (Arrow JS would pad a
 * shorter one with a null bitmap as long as the batch claims to be).
 */
export function checkRecordBatchBody(
  schema: Schema,
  header: RecordBatchHeader,
  body: Uint8Array,
  metadataVersion: MetadataVersion,
): void {
  if (!isCount(header.length)) malformed(`batch length ${header.length}`);
  const walker = new BatchWalker(header, body, metadataVersion);
  for (const field of schema.fields) walker.column(field);
  walker.finish();
}
