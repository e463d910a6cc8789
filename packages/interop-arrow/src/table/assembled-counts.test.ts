// assembledCounts against Arrow JS's own assembler, column by column, over every type Arrow JS
// writes (nested, dictionary, unions, views, sliced columns), and layoutTable unchanged by it.
import {
  Binary,
  Bool,
  type Data,
  type DataType,
  DateDay,
  Decimal,
  DenseUnion,
  Dictionary,
  DurationMillisecond,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  Float32,
  Int8,
  Int32,
  Int64,
  IntervalDayTime,
  LargeUtf8,
  List,
  Map_,
  makeBuilder,
  Null,
  RecordBatchStreamWriter,
  SparseUnion,
  Struct,
  Table,
  TimeMillisecond,
  TimestampMicrosecond,
  tableToIPC,
  Utf8,
  Vector,
  vectorFromArray,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { sameBytes } from '../../test/support.js';
import { assembledCounts } from './assembled-counts.js';
import { layoutTable, writeChunks } from './ipc-layout.js';

class Assembler extends RecordBatchStreamWriter {
  counts(data: Data): { nodes: number; buffers: number } {
    const one = this._assembleRecordBatch(new Vector([data]));
    return { nodes: one.nodes.length, buffers: one.bufferRegions.length };
  }
}

function built(type: DataType, values: unknown[]): Vector {
  // Unions: numbers go to child 0, strings to child 1.
  const valueToChildTypeId = (_: unknown, value: unknown) => (typeof value === 'string' ? 1 : 0);
  const builder = makeBuilder({ type, nullValues: [null], valueToChildTypeId } as never);
  for (const value of values) builder.append(value);
  return builder.finish().toVector();
}

function everyType(): Table {
  const item = (type: DataType) => new Field('item', type, true);
  const pair = [new Field('a', new Int32(), true), new Field('b', new Utf8(), true)];
  return new Table({
    null: vectorFromArray([null, null, null, null], new Null()),
    bool: vectorFromArray([true, null, false, true], new Bool()),
    int8: vectorFromArray([1, 2, null, 4], new Int8()),
    int64: vectorFromArray([1n, 2n, 3n, null], new Int64()),
    float: vectorFromArray([0.5, null, 1.5, 2], new Float32()),
    decimal: built(new Decimal(2, 9, 128), [new Uint32Array(4), null, new Uint32Array(4), null]),
    date: vectorFromArray([new Date(0), null, new Date(86400000), new Date(0)], new DateDay()),
    time: vectorFromArray([1, 2, null, 4], new TimeMillisecond()),
    timestamp: vectorFromArray([1, 2, 3, null], new TimestampMicrosecond()),
    interval: built(new IntervalDayTime(), [new Int32Array([1, 2]), null, new Int32Array([3, 4]), null]),
    duration: vectorFromArray([1n, null, 3n, 4n], new DurationMillisecond()),
    fixedBinary: built(new FixedSizeBinary(3), [new Uint8Array(3), null, new Uint8Array([1, 2, 3]), null]),
    utf8: vectorFromArray(['a', null, 'bc', ''], new Utf8()),
    largeUtf8: vectorFromArray(['a', null, 'bc', ''], new LargeUtf8()),
    binary: built(new Binary(), [new Uint8Array([1]), null, new Uint8Array(0), new Uint8Array([2, 3])]),
    list: vectorFromArray([[1], [], null, [2, 3]], new List(item(new Int32()))),
    listOfStrings: vectorFromArray([['x'], null, [], ['y', null]], new List(item(new Utf8()))),
    fixedList: vectorFromArray([[1, 2], null, [3, 4], [5, 6]], new FixedSizeList(2, item(new Int32()))),
    struct: vectorFromArray(
      [{ a: 1, b: 'x' }, null, { a: null, b: 'y' }, { a: 4, b: null }],
      new Struct(pair),
    ),
    map: built(
      new Map_(
        new Field(
          'entries',
          new Struct<{ key: Utf8; value: Int32 }>([
            new Field('key', new Utf8(), false),
            new Field('value', new Int32(), true),
          ]),
          false,
        ),
      ),
      [
        new Map([['k', 1]]),
        null,
        new Map(),
        new Map([
          ['a', 2],
          ['b', null],
        ]),
      ],
    ),
    dense: built(new DenseUnion([0, 1], pair), [1, 'x', null, 2]),
    sparse: built(new SparseUnion([0, 1], pair), ['y', 3, 'z', null]),
    dictionary: vectorFromArray(['p', 'q', null, 'p'], new Dictionary(new Utf8(), new Int32())),
  });
}

describe('assembledCounts', () => {
  const table = everyType();
  const assembler = new Assembler();

  it('matches Arrow JS assembling each column alone, for every type, whole and sliced', () => {
    for (const view of [table, table.slice(1, 3), table.slice(3)]) {
      for (const batch of view.batches) {
        const columns = batch.data.children as Data[];
        expect(assembledCounts(columns)).toEqual(columns.map((column) => assembler.counts(column)));
      }
    }
  });

  it('leaves layoutTable exactly tableToIPC', () => {
    for (const view of [table, table.slice(1, 3)]) {
      const layout = layoutTable(view);
      const bytes = new Uint8Array(layout.byteLength);
      writeChunks(layout.chunks, bytes);
      expect(sameBytes(bytes, tableToIPC(view, 'stream'))).toBe(true);
      const batch = layout.batches[0];
      expect(batch?.columns).toHaveLength(view.numCols);
    }
  });
});
