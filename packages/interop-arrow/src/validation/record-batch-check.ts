// Checks a record batch message's field nodes and buffer regions against the schema and the
// body before Arrow JS builds arrays from them. Arrow JS trusts them: a FieldNode length larger
// than the column's buffers makes it pad the column with a fresh null bitmap of that length (a
// flipped byte is a fatal heap OOM), and a buffer region past the body is silently truncated.
// The walk mirrors Arrow JS's VectorLoader (which nodes and buffers each type consumes, in IPC
// order) and requires every length to fit in the bytes its buffers really hold, and every value
// Arrow JS trusts (offsets, union ids, dictionary indices, views) to be in range
// (record-batch-values.ts).

import { type DataType, type Field, MetadataVersion, type Schema, Type, UnionMode } from 'apache-arrow';
import {
  checkDenseOffsets,
  checkDictionaryIndices,
  checkOffsets,
  checkUnionTypeIds,
  checkValidity,
  checkViews,
  malformed,
  regionView,
  type ValidSlot,
} from './record-batch-values.js';

/** What Arrow JS decoded from a RecordBatch message header. */
export interface RecordBatchHeader {
  readonly length: number;
  readonly nodes: readonly { readonly length: number; readonly nullCount: number }[];
  readonly buffers: readonly { readonly offset: number; readonly length: number }[];
  readonly variadicBufferCounts: readonly number[];
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
    readonly dictionaryLengths: ReadonlyMap<number, number>,
    /** False: check nodes and buffer regions only, reading no byte of `body` (still in flight). */
    readonly readValues: boolean,
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

  #view(region: { offset: number; length: number }): DataView {
    return regionView(this.body, region.offset, region.length);
  }

  #validity(path: string, length: number, nullCount: number): ValidSlot {
    const region = this.#nextBuffer(`${path} validity`, nullCount > 0 ? Math.ceil(length / 8) : 0);
    const bitmap =
      nullCount > 0 && this.readValues
        ? this.body.subarray(region.offset, region.offset + region.length)
        : null;
    return checkValidity(bitmap, length, nullCount, path);
  }

  // Offsets of a variable-size layout: (length + 1) of them, non-decreasing from a non-negative
  // start. @returns the last offset: how many child values or data bytes the column uses.
  #offsets(path: string, length: number, width: 4 | 8): number {
    const region = this.#nextBuffer(`${path} offsets`, length === 0 ? 0 : (length + 1) * width);
    if (length === 0 || !this.readValues) return 0;
    return checkOffsets(this.#view(region), length, width, path);
  }

  /** A top-level column: exactly the batch's length. */
  column(field: Field): void {
    this.#type(field.type, field.name, this.header.length, true);
  }

  // `atLeast`: the values the parent needs from this column (all of them when `exact`).
  // @returns the column's length.
  #type(type: DataType, path: string, atLeast: number, exact = false): number {
    const { length, nullCount } = this.#nextNode(path);
    if (exact ? length !== atLeast : length < atLeast) {
      malformed(`${path} has ${length} values, ${exact ? 'the batch has' : 'its parent needs'} ${atLeast}`);
    }
    const children = (type.children ?? []) as Field[];
    switch (type.typeId) {
      case Type.Null:
        return length;
      case Type.Bool:
        this.#validity(path, length, nullCount);
        this.#nextBuffer(`${path} values`, Math.ceil(length / 8));
        return length;
      case Type.Utf8:
      case Type.Binary:
      case Type.LargeUtf8:
      case Type.LargeBinary: {
        this.#validity(path, length, nullCount);
        const large = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
        const used = this.#offsets(path, length, large ? 8 : 4);
        this.#nextBuffer(`${path} data`, used);
        return length;
      }
      case Type.Utf8View:
      case Type.BinaryView: {
        const valid = this.#validity(path, length, nullCount);
        const views = this.#nextBuffer(`${path} views`, length * 16);
        const count = this.header.variadicBufferCounts[this.#variadic++] ?? 0;
        if (!isCount(count)) malformed(`${path} has ${count} variadic buffers`);
        const dataLengths: number[] = [];
        for (let i = 0; i < count; i++) dataLengths.push(this.#nextBuffer(`${path} data ${i}`, 0).length);
        if (this.readValues) checkViews(this.#view(views), length, valid, dataLengths, path);
        return length;
      }
      case Type.List:
      case Type.LargeList:
      case Type.Map: {
        this.#validity(path, length, nullCount);
        const used = this.#offsets(path, length, type.typeId === Type.LargeList ? 8 : 4);
        this.#children(children, path, used);
        return length;
      }
      case Type.FixedSizeList: {
        this.#validity(path, length, nullCount);
        this.#children(children, path, length * (type as DataType & { listSize: number }).listSize);
        return length;
      }
      case Type.Struct:
        this.#validity(path, length, nullCount);
        this.#children(children, path, length);
        return length;
      case Type.Union: {
        if (this.metadataVersion < MetadataVersion.V5) this.#validity(path, length, nullCount);
        const idRegion = this.#nextBuffer(`${path} type ids`, length);
        const union = type as DataType & { mode: UnionMode; typeIds: ArrayLike<number> };
        const ids = this.body.subarray(idRegion.offset, idRegion.offset + length);
        const childOfSlot = this.readValues ? checkUnionTypeIds(ids, length, union.typeIds, path) : null;
        const dense = union.mode === UnionMode.Dense;
        const offsets = dense ? this.#nextBuffer(`${path} offsets`, length * 4) : undefined;
        const lengths = this.#children(children, path, dense ? 0 : length);
        if (offsets && childOfSlot) checkDenseOffsets(this.#view(offsets), childOfSlot, lengths, path);
        return length;
      }
      case Type.Dictionary: {
        // The column holds indices; the dictionary's values come in dictionary batches.
        const valid = this.#validity(path, length, nullCount);
        const dictionary = type as DataType & {
          id: number;
          indices: DataType & { bitWidth: number; isSigned: boolean };
        };
        const indices = valueBytes(dictionary.indices) ?? Number.NaN;
        const region = this.#nextBuffer(`${path} indices`, length * indices);
        const values = this.dictionaryLengths.get(dictionary.id) ?? 0;
        const { bitWidth, isSigned } = dictionary.indices;
        if (this.readValues) {
          checkDictionaryIndices(this.#view(region), length, bitWidth, isSigned, valid, values, path);
        }
        return length;
      }
      default: {
        const bytes = valueBytes(type);
        if (bytes === undefined || !Number.isFinite(bytes)) {
          throw new TypeError(`readRecordBatch cannot check columns of type ${String(type)} (${path})`);
        }
        this.#validity(path, length, nullCount);
        this.#nextBuffer(`${path} values`, length * bytes);
        return length;
      }
    }
  }

  // @returns each child's length.
  #children(children: readonly Field[], path: string, atLeast: number): number[] {
    return children.map((child, index) => {
      // Arrow JS decodes a child it cannot read from damaged metadata as a hole in the list.
      if (child?.type === undefined) malformed(`${path} has no readable child field ${index}`);
      return this.#type(child.type, `${path}.${child.name}`, atLeast);
    });
  }
}

/**
 * Throws RangeError unless the batch's field nodes and buffers are exactly those `schema`
 * needs, every buffer lies inside `body`, every node's length fits its buffers and its
 * parent's needs, every top-level column has the batch's length (Arrow JS would pad a
 * shorter one with a null bitmap as long as the batch claims to be), and every value Arrow JS
 * uses to index is in range: offsets, validity counts, union type ids and offsets, views, and
 * dictionary indices (against `dictionaryLengths`, values per dictionary id; none: empty).
 */
export function checkRecordBatchBody(
  schema: Schema,
  header: RecordBatchHeader,
  body: Uint8Array,
  metadataVersion: MetadataVersion,
  dictionaryLengths: ReadonlyMap<number, number> = new Map(),
): void {
  walkBatch(schema, header, body, metadataVersion, dictionaryLengths, true);
}

/**
 * The checks of {@link checkRecordBatchBody} that need no byte of `body`: field nodes and
 * buffer regions against the schema and the body's length. Enough for Arrow JS to build the
 * batch's arrays as views (what it does) while the body is still being copied; the values must
 * be checked with checkRecordBatchBody once they have arrived, before anything reads them.
 */
export function checkRecordBatchRegions(
  schema: Schema,
  header: RecordBatchHeader,
  body: Uint8Array,
  metadataVersion: MetadataVersion,
): void {
  walkBatch(schema, header, body, metadataVersion, new Map(), false);
}

function walkBatch(
  schema: Schema,
  header: RecordBatchHeader,
  body: Uint8Array,
  metadataVersion: MetadataVersion,
  dictionaryLengths: ReadonlyMap<number, number>,
  readValues: boolean,
): void {
  if (!isCount(header.length)) malformed(`batch length ${header.length}`);
  const walker = new BatchWalker(header, body, metadataVersion, dictionaryLengths, readValues);
  for (const field of schema.fields) walker.column(field);
  walker.finish();
}
