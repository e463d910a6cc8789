// An empty variable-size column (Utf8, Binary, their Large forms, List) whose offsets buffer has
// 0 entries instead of 1. Arrow's columnar format describes length + 1 offsets, but Arrow C++
// (its validator: "an empty list array can have 0 offsets") and Arrow JS accept an empty
// offsets buffer for a column of 0 values, and Arrow JS writes one for a vector whose offsets
// array is empty. An earlier fuzz run of device messages returned such a column and the test
// suite's independent check (test/arrow-validation.ts) called it broken; these cases pin that
// cumem's checks, uploads and reads accept it and give back exactly what Arrow JS reads from
// the same bytes.
import { describeEachDriver } from '@cumem/testing/vitest';
import {
  Binary,
  type Data,
  Dictionary,
  Field,
  Int32,
  LargeBinary,
  LargeUtf8,
  List,
  MessageHeader,
  makeData,
  makeVector,
  RecordBatch,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BufferReader,
  type Context,
  layoutTable,
  newHostBuffer,
  readMessage,
  readRecordBatch,
  serializeRecordBatch,
  tableFromDevice,
  tableToDevice,
} from '../src/index.js';
import { adapters, contextWith, sameBytes } from './support.js';

/** A column of 0 strings whose offsets buffer holds no entry at all. */
function noOffsetsUtf8(): Data<Utf8> {
  return makeData({
    type: new Utf8(),
    length: 0,
    nullCount: 0,
    valueOffsets: new Int32Array(0),
    data: new Uint8Array(0),
  });
}

/** The same for each variable-size binary type (32- and 64-bit offsets). */
function noOffsetsColumns(): Record<string, Data> {
  return {
    utf8: noOffsetsUtf8(),
    binary: makeData({
      type: new Binary(),
      length: 0,
      nullCount: 0,
      valueOffsets: new Int32Array(0),
      data: new Uint8Array(0),
    }),
    largeUtf8: makeData({
      type: new LargeUtf8(),
      length: 0,
      nullCount: 0,
      valueOffsets: new BigInt64Array(0),
      data: new Uint8Array(0),
    }),
    largeBinary: makeData({
      type: new LargeBinary(),
      length: 0,
      nullCount: 0,
      valueOffsets: new BigInt64Array(0),
      data: new Uint8Array(0),
    }),
  };
}

/** The offsets buffer Arrow JS wrote for `column` in the stream of `table` (bytes). */
function offsetsBytes(table: Table, column: string): number | undefined {
  const index = table.schema.fields.findIndex((field) => field.name === column);
  return layoutTable(table).batches[0]?.columns[index]?.buffers[1]?.length;
}

function zeroRowTable(): Table {
  const columns = noOffsetsColumns();
  return new Table(
    Object.fromEntries(Object.entries(columns).map(([name, data]) => [name, makeVector(data)])),
  );
}

describeEachDriver(adapters, 'empty columns whose offsets buffer has 0 entries', (entry) => {
  let context: Context;

  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  it('Arrow JS writes a 0-byte offsets buffer for them, and reads the stream back', () => {
    const table = zeroRowTable();
    for (const name of ['utf8', 'binary', 'largeUtf8', 'largeBinary'])
      expect(offsetsBytes(table, name)).toBe(0);
    const back = tableFromIPC(tableToIPC(table, 'stream'));
    expect(back.numRows).toBe(0);
    expect(back.getChild('utf8')?.toArray()).toEqual([]);
  });

  it('tableToDevice / tableFromDevice round-trip a 0-row table of such columns, byte for byte', () => {
    const table = zeroRowTable();
    const stream = tableToIPC(table, 'stream');
    using onDevice = tableToDevice(table, context);
    expect(onDevice.numRows).toBe(0);
    expect(sameBytes(onDevice.buffer.copyToHost(), stream)).toBe(true);
    expect(onDevice.columnBuffer('utf8', 1).size).toBe(0);
    for (const output of ['pinned', 'pageable'] as const) {
      const back = tableFromDevice(onDevice, { output });
      expect(back.numRows).toBe(0);
      expect(back.schema.fields.map((field) => field.name)).toEqual([
        'utf8',
        'binary',
        'largeUtf8',
        'largeBinary',
      ]);
      expect(back.getChild('utf8')?.length).toBe(0);
      // Uploading what came back gives the same stream again.
      using again = tableToDevice(back, context);
      expect(again.buffer.equals(onDevice.buffer)).toBe(true);
    }
  });

  it('the same stream read from a CudaBuffer, a BufferReader and as single messages', () => {
    const table = zeroRowTable();
    const dbuf = context.bufferFromData(tableToIPC(table, 'stream'));
    expect(tableFromDevice(dbuf).numRows).toBe(0);
    expect(tableFromDevice(new BufferReader(dbuf)).numRows).toBe(0);
    const batch = table.batches[0] as RecordBatch;
    const message = serializeRecordBatch(batch, context);
    const read = readRecordBatch(message, batch.schema);
    expect(read.numRows).toBe(0);
    expect(read.getChild('largeBinary')?.length).toBe(0);
    const reader = new BufferReader(dbuf);
    let batches = 0;
    for (let next = readMessage(reader); next; next = readMessage(reader)) {
      if (next.headerType === MessageHeader.RecordBatch && next.body.size === 0) batches++;
    }
    expect(batches).toBe(1);
    dbuf.close();
    message.close();
  });

  it('nested: a list of 2 empty lists over 0 strings, a struct, and an empty dictionary', () => {
    const strings = noOffsetsUtf8();
    const listType = new List(new Field('item', new Utf8(), true));
    const lists = makeData({
      type: listType,
      length: 2,
      nullCount: 0,
      valueOffsets: Int32Array.of(0, 0, 0),
      child: strings,
    });
    const structs = makeData({
      type: new Struct([new Field('s', new Utf8(), true)]),
      length: 2,
      nullCount: 0,
      children: [vectorFromArray(['a', 'b'], new Utf8()).data[0] as Data],
    });
    const dictionaryType = new Dictionary(new Utf8(), new Int32());
    const keys = makeData({
      type: dictionaryType,
      length: 2,
      nullCount: 2,
      nullBitmap: Uint8Array.of(0),
      data: Int32Array.of(0, 0),
      dictionary: makeVector(noOffsetsUtf8()),
    });
    const table = new Table({
      lists: makeVector(lists),
      structs: makeVector(structs),
      keys: makeVector(keys),
    });
    const stream = tableToIPC(table, 'stream');
    using onDevice = tableToDevice(table, context);
    expect(sameBytes(onDevice.buffer.copyToHost(), stream)).toBe(true);
    const back = tableFromDevice(onDevice);
    expect(
      back
        .getChild('lists')
        ?.toArray()
        .map((list: { length: number }) => list.length),
    ).toEqual([0, 0]);
    expect(back.getChild('keys')?.toArray()).toEqual([null, null]);
    expect(sameBytes(tableToIPC(back, 'stream'), stream)).toBe(true);
  });

  describe('with a large batch after it (the pipelined read: 1 MiB and more into pinned memory)', () => {
    it('an empty first batch, then 300,000 rows', () => {
      const rows = 300_000;
      const large = new Table({
        s: vectorFromArray(
          Array.from({ length: rows }, (_, i) => (i % 7 === 0 ? '' : 'x')),
          new Utf8(),
        ),
        n: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => i)),
      });
      const schema = large.schema;
      const empty = new RecordBatch(
        schema,
        makeData({
          type: new Struct(schema.fields),
          length: 0,
          nullCount: 0,
          children: [
            noOffsetsUtf8(),
            makeData({ type: new Int32(), length: 0, nullCount: 0, data: new Int32Array(0) }),
          ],
        }),
      );
      const table = new Table(schema, [empty, ...large.batches]);
      const stream = tableToIPC(table, 'stream');
      expect(stream.byteLength).toBeGreaterThanOrEqual(1 << 20);
      using onDevice = tableToDevice(table, context);
      expect(onDevice.batches).toHaveLength(table.batches.length);
      expect(onDevice.batches[0]?.columns[0]?.buffers[1]?.length).toBe(0);
      using host = newHostBuffer(stream.byteLength);
      const back = tableFromDevice(onDevice, { output: host });
      expect(back.numRows).toBe(rows);
      expect(back.getChild('s')?.get(rows - 2)).toBe('x');
      expect(back.getChild('s')?.get(rows - 1)).toBe(''); // 299,999 is a multiple of 7
      expect(back.getChild('n')?.get(rows - 1)).toBe(rows - 1);
      expect(sameBytes(tableToIPC(back, 'stream'), stream)).toBe(true);
    });
  });

  it('still refuses a 0-byte offsets buffer for a column that has values', () => {
    // One string "ab": the offsets buffer is [0, 2]; its length field in the metadata set to 0.
    const table = new Table({ s: vectorFromArray(['ab'], new Utf8()) });
    const stream = tableToIPC(table, 'stream');
    const layout = layoutTable(table);
    const batch = layout.batches[0];
    if (!batch) throw new Error('no batch');
    const offsets = batch.columns[0]?.buffers[1];
    expect(offsets?.length).toBe(8);
    // Find the Buffer struct { offset: int64, length: int64 } of the offsets in the metadata.
    const metadata = stream.subarray(batch.message.offset, batch.message.bodyOffset);
    const view = new DataView(metadata.buffer, metadata.byteOffset, metadata.byteLength);
    const relative = BigInt((offsets?.offset ?? 0) - batch.message.bodyOffset);
    let patched = 0;
    for (let at = 0; at + 16 <= metadata.byteLength; at += 8) {
      if (view.getBigInt64(at, true) === relative && view.getBigInt64(at + 8, true) === 8n) {
        view.setBigInt64(at + 8, 0n, true);
        patched++;
        break;
      }
    }
    expect(patched).toBe(1);
    const dbuf = context.bufferFromData(stream);
    expect(() => tableFromDevice(dbuf)).toThrow(
      /malformed IPC record batch: buffer \d+ \(s offsets\) has 0 bytes/,
    );
    dbuf.close();
  });
});
