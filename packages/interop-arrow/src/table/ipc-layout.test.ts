import {
  Field,
  Float64,
  Int32,
  List,
  makeTable,
  RecordBatchReader,
  Schema,
  Table,
  tableFromArrays,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { layoutRecordBatchMessage, layoutSchema, layoutTable, writeChunks } from './ipc-layout.js';

function concat(layout: {
  byteLength: number;
  chunks: readonly { offset: number; bytes: Uint8Array }[];
}): Uint8Array {
  const out = new Uint8Array(layout.byteLength);
  writeChunks(layout.chunks, out);
  return out;
}

function mixedTable(): Table {
  return new Table({
    id: vectorFromArray([1, 2, null, 4], new Int32()),
    value: vectorFromArray([0.5, null, 2.5, 3.5], new Float64()),
    name: vectorFromArray(['a', 'bcd', null, ''], new Utf8()),
    tags: vectorFromArray([[1, 2], [], null, [3]], new List(new Field('item', new Int32(), true))),
    kind: vectorFromArray(['x', 'y', 'x', null]),
  });
}

describe('layoutTable', () => {
  it('is byte-identical to tableToIPC (stream) for primitive columns', () => {
    const table = tableFromArrays({ a: Int32Array.from([1, 2, 3]), b: Float64Array.from([1.5, 2.5, 3.5]) });
    const layout = layoutTable(table);
    expect(concat(layout)).toEqual(tableToIPC(table, 'stream'));
  });

  it('is byte-identical for nullable, string, list and dictionary columns and several batches', () => {
    const one = mixedTable();
    const table = one.concat(one.slice(1, 3));
    expect(table.batches.length).toBe(2);
    const layout = layoutTable(table);
    expect(concat(layout)).toEqual(tableToIPC(table, 'stream'));
    expect(layout.batches).toHaveLength(2);
  });

  it('is byte-identical for an empty table and a zero-row batch', () => {
    const empty = new Table(new Schema([new Field('a', new Int32())]));
    expect(concat(layoutTable(empty))).toEqual(tableToIPC(empty, 'stream'));
    const zeroRows = tableFromArrays({ a: new Int32Array(0) });
    expect(concat(layoutTable(zeroRows))).toEqual(tableToIPC(zeroRows, 'stream'));
  });

  it('gives each column buffer offsets that hold the column values', () => {
    const ints = Int32Array.from({ length: 1000 }, (_, i) => i * 3 - 7);
    const floats = Float64Array.from({ length: 1000 }, (_, i) => i / 8);
    const table = tableFromArrays({ ints, floats });
    const layout = layoutTable(table);
    const bytes = concat(layout);
    const [batch] = layout.batches;
    expect(batch?.numRows).toBe(1000);
    const [intColumn, floatColumn] = batch?.columns ?? [];
    expect(intColumn?.buffers).toHaveLength(2);
    expect(intColumn?.buffers[0]?.length).toBe(0); // no nulls: no validity bitmap
    const intRange = intColumn?.buffers[1];
    const floatRange = floatColumn?.buffers[1];
    if (!intRange || !floatRange) throw new Error('missing ranges');
    expect(intRange.offset % 8).toBe(0);
    expect(new Int32Array(bytes.buffer, intRange.offset, 1000)).toEqual(ints);
    expect(new Float64Array(bytes.buffer, floatRange.offset, 1000)).toEqual(floats);
  });

  it('splits nested columns: list column owns its child buffers, utf8 has three', () => {
    const layout = layoutTable(mixedTable());
    const columns = layout.batches[0]?.columns ?? [];
    expect(columns.map((c) => c.buffers.length)).toEqual([2, 2, 3, 4, 2]);
    expect(columns.map((c) => c.nullCount)).toEqual([1, 1, 1, 1, 1]);
    expect(columns.every((c) => c.length === 4)).toBe(true);
  });

  it('copies no column data: body chunks view the columns\u2019 own memory', () => {
    const ints = Int32Array.from({ length: 4096 }, (_, i) => i);
    const table = tableFromArrays({ ints });
    const layout = layoutTable(table);
    expect(layout.chunks.some((chunk) => chunk.bytes.buffer === ints.buffer)).toBe(true);
  });
});

describe('layoutRecordBatchMessage', () => {
  it('is the record batch message of the Arrow JS stream, rebased to 0', () => {
    const table = tableFromArrays({ a: Int32Array.from([5, 6, 7]), b: Float64Array.from([1, 2, 3]) });
    const batch = table.batches[0];
    if (!batch) throw new Error('no batch');
    const stream = tableToIPC(table, 'stream');
    const full = layoutTable(table);
    const { layout, chunks } = layoutRecordBatchMessage(batch);
    const message = new Uint8Array(layout.message.byteLength);
    writeChunks(chunks, message);
    const start = full.batches[0]?.message.offset ?? -1;
    expect(message).toEqual(stream.subarray(start, start + layout.message.byteLength));
    expect(layout.message.offset).toBe(0);
    expect(new Int32Array(message.buffer, layout.columns[0]?.buffers[1]?.offset, 3)).toEqual(
      Int32Array.from([5, 6, 7]),
    );
  });

  it('refuses dictionary-encoded columns with a TypeError', () => {
    const table = new Table({ kind: vectorFromArray(['x', 'y', 'x']) });
    const batch = table.batches[0];
    if (!batch) throw new Error('no batch');
    expect(() => layoutRecordBatchMessage(batch)).toThrow(TypeError);
  });
});

describe('layoutSchema', () => {
  it('plus a batch message and end-of-stream reads back as that batch', () => {
    const table = tableFromArrays({ a: Int32Array.from([1, 2]), b: Float64Array.from([3, 4]) });
    const batch = table.batches[0];
    if (!batch) throw new Error('no batch');
    const schema = layoutSchema(table.schema);
    const { layout, chunks } = layoutRecordBatchMessage(batch);
    const schemaBytes = concat(schema);
    const bytes = new Uint8Array(schema.byteLength + layout.message.byteLength);
    const eos = 8;
    bytes.set(schemaBytes.subarray(0, schema.byteLength - eos), 0);
    writeChunks(chunks, bytes, schema.byteLength - eos);
    bytes.set(
      schemaBytes.subarray(schema.byteLength - eos),
      schema.byteLength - eos + layout.message.byteLength,
    );
    expect(bytes).toEqual(tableToIPC(table, 'stream'));
    const reader = RecordBatchReader.from(bytes);
    expect([...reader].map((b) => b.numRows)).toEqual([2]);
    expect(tableFromIPC(bytes).getChild('a')?.toArray()).toEqual(Int32Array.from([1, 2]));
    expect(makeTable).toBeTypeOf('function');
  });
});
