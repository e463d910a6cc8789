import { describeEachDriver } from '@cumem/testing/vitest';
import {
  Field,
  Float64,
  Int32,
  List,
  MessageHeader,
  Schema,
  Table,
  tableFromArrays,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, contextWith, sameBytes } from '../../test/support.js';
import { BufferReader } from '../buffer/buffer-reader.js';
import type { Context } from '../context/context.js';
import { newHostBuffer } from '../host/host-buffer.js';
import { readMessage, readRecordBatch, serializeRecordBatch } from './device-message.js';
import { tableFromDevice, tableToDevice } from './device-table.js';
import { layoutTable } from './ipc-layout.js';

function recordBatchTable(length: number): Table {
  return tableFromArrays({
    f0: Int16Array.from({ length }, (_, i) => (i * 37) % 255),
    f1: Int16Array.from({ length }, (_, i) => (i * 91) % 255),
  });
}

// pyarrow's make_table, without the dictionary-of-list/struct columns Arrow JS cannot build.
function mixedTable(): Table {
  return new Table({
    f0: vectorFromArray([0, 1, 42, null], new Int32()),
    f1: vectorFromArray([[0, 1], [2], [], null], new List(new Field('item', new Int32(), true))),
    f2: vectorFromArray(['ab', 'cde', null, ''], new Utf8()),
    f3: vectorFromArray(['foo', 'bar', 'bar', null]),
    f4: vectorFromArray([0.5, null, 2.5, 3.5], new Float64()),
  });
}

describeEachDriver(adapters, 'Arrow IPC in device memory', (entry) => {
  let context: Context;

  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  describe('serializeRecordBatch / readRecordBatch (test_batch_serialize)', () => {
    it('writes the exact bytes of the Arrow JS record batch message and reads them back', () => {
      const table = recordBatchTable(10);
      const batch = table.batches[0];
      if (!batch) throw new Error('no batch');
      const cbuf = serializeRecordBatch(batch, context);
      const stream = tableToIPC(table, 'stream');
      const message = layoutTable(table).batches[0]?.message;
      if (!message) throw new Error('no message');
      expect(cbuf.size).toBe(message.byteLength);
      expect(cbuf.copyToHost()).toEqual(stream.subarray(message.offset, message.offset + message.byteLength));

      const cbatch = readRecordBatch(cbuf, batch.schema);
      expect(cbatch.schema.fields.map((f) => f.name)).toEqual(['f0', 'f1']);
      expect(cbatch.numRows).toBe(10);
      expect(cbatch.numCols).toBe(2);
      expect(cbatch.getChild('f0')?.toArray()).toEqual(batch.getChild('f0')?.toArray());
      expect(cbatch.getChild('f1')?.toArray()).toEqual(batch.getChild('f1')?.toArray());
    });

    it('stages the same bytes whatever the staging choice, including a small ring', () => {
      const table = recordBatchTable(100_000);
      const batch = table.batches[0];
      if (!batch) throw new Error('no batch');
      const reference = serializeRecordBatch(batch, context, { staging: 'pageable' }).copyToHost();
      const staging = newHostBuffer(4096);
      for (const options of [
        { staging: 'pinned' as const, stagingBytes: 1000 },
        { staging: 'auto' as const },
        { staging },
      ]) {
        expect(sameBytes(serializeRecordBatch(batch, context, options).copyToHost(), reference)).toBe(true);
      }
      staging.close();
      expect(() => serializeRecordBatch(batch, context, { staging: 'fast' as never })).toThrow(TypeError);
      expect(() => serializeRecordBatch(batch, {} as never)).toThrow(TypeError);
    });

    it('readMessage returns the decoded metadata and the body as a device view', () => {
      const table = recordBatchTable(10);
      const batch = table.batches[0];
      if (!batch) throw new Error('no batch');
      const cbuf = serializeRecordBatch(batch, context);
      const reader = new BufferReader(cbuf);
      const message = readMessage(reader);
      if (!message) throw new Error('no message');
      expect(message.headerType).toBe(MessageHeader.RecordBatch);
      expect(message.body.size).toBe(message.bodyLength);
      expect(message.body.address).toBe(cbuf.address + BigInt(cbuf.size - message.bodyLength));
      expect(reader.tell()).toBe(cbuf.size);
      expect(readMessage(reader)).toBeNull();
      expect(message.toHost()).toEqual(cbuf.copyToHost());
      // An `out` whose own byteLength claims room it lacks is measured by its true extent.
      const short = new Uint8Array(8);
      Object.defineProperty(short, 'byteLength', { value: message.byteLength });
      expect(() => message.toHost(short)).toThrow(/the message has \d+ bytes, out has 8/);
      expect(readRecordBatch(message, batch.schema).getChild('f1')?.toArray()).toEqual(
        batch.getChild('f1')?.toArray(),
      );
    });

    it('reads every message of a stream on the device in turn (test_table_deserialize)', () => {
      const table = mixedTable();
      const bytes = tableToIPC(table, 'stream');
      const dbuf = context.bufferFromData(bytes);
      const reader = new BufferReader(dbuf);
      const kinds: MessageHeader[] = [];
      for (let message = readMessage(reader); message; message = readMessage(reader))
        kinds.push(message.headerType);
      expect(kinds).toEqual([MessageHeader.Schema, MessageHeader.DictionaryBatch, MessageHeader.RecordBatch]);
      expect(sameBytes(tableToIPC(tableFromIPC(dbuf.copyToHost()), 'stream'), bytes)).toBe(true);
    });

    it('refuses dictionary batches and wrong arguments', () => {
      const table = mixedTable();
      const batch = table.batches[0];
      if (!batch) throw new Error('no batch');
      expect(() => serializeRecordBatch(batch, context)).toThrow(TypeError);
      const plain = recordBatchTable(3);
      const cbuf = serializeRecordBatch(plain.batches[0] as never, context);
      expect(() => readRecordBatch(cbuf, table.schema)).toThrow(TypeError);
      expect(() => readRecordBatch(cbuf, {} as never)).toThrow(TypeError);
      expect(() => readMessage(new Uint8Array(8) as never)).toThrow(TypeError);
      const schemaOnly = context.bufferFromData(
        tableToIPC(new Table(new Schema([new Field('a', new Int32())]))),
      );
      expect(() => readRecordBatch(schemaOnly, plain.schema)).toThrow(TypeError);
    });
  });

  describe('tableToDevice / tableFromDevice', () => {
    it('puts exactly tableToIPC bytes in one allocation, with column offsets that hold the values', () => {
      const n = 50_000;
      const ints = Int32Array.from({ length: n }, (_, i) => i - 25_000);
      const floats = Float64Array.from({ length: n }, (_, i) => i * 0.25);
      const table = tableFromArrays({ ints, floats });
      const before = context.bytesAllocated;
      const deviceTable = tableToDevice(table, context);
      expect(context.bytesAllocated - before).toBe(deviceTable.byteLength);
      expect(deviceTable.numRows).toBe(n);
      expect(sameBytes(deviceTable.buffer.copyToHost(), tableToIPC(table, 'stream'))).toBe(true);
      const intsColumn = deviceTable.getColumn('ints');
      const values = intsColumn?.chunks[0]?.buffers[1];
      if (!values) throw new Error('no values buffer');
      expect(values.length).toBe(n * 4);
      const host = new Int32Array(
        deviceTable.buffer.copyToHost({ position: values.offset, nbytes: n * 4 }).buffer,
      );
      expect(sameBytes(host, ints)).toBe(true);
      const floatsView = deviceTable.columnBuffer('floats', 1);
      expect(sameBytes(floatsView.copyToHost(), floats)).toBe(true);
      expect(deviceTable.columnBuffer(0, 0).size).toBe(0);
      expect(() => deviceTable.columnBuffer('nope', 0)).toThrow(RangeError);
      // Found by the fuzz test: an argument String() cannot print was a TypeError of the engine's.
      expect(() => deviceTable.columnBuffer({ toString: 0 } as never, 0)).toThrow(
        /column \(a name or an index\) must be an integer/,
      );
      expect(() => deviceTable.columnBuffer(0, 0.5)).toThrow(/bufferIndex must be an integer/);
      expect(() => deviceTable.columnBuffer(0, 0, '0' as never)).toThrow(/batch must be an integer/);

      for (const output of ['pinned', 'pageable'] as const) {
        const back = tableFromDevice(deviceTable, { output });
        expect(back.numRows).toBe(n);
        expect(sameBytes(back.getChild('ints')?.toArray(), ints)).toBe(true);
        expect(sameBytes(back.getChild('floats')?.toArray(), floats)).toBe(true);
      }
      deviceTable.close();
      expect(context.bytesAllocated).toBe(before);
    });

    it('round-trips nested, nullable and dictionary columns over several batches', () => {
      const one = mixedTable();
      const table = one.concat(one.slice(1, 3));
      using deviceTable = tableToDevice(table, context, { staging: 'pinned', stagingBytes: 64 });
      expect(deviceTable.batches).toHaveLength(2);
      expect(deviceTable.columns.map((c) => c.chunks.length)).toEqual([2, 2, 2, 2, 2]);
      const back = tableFromDevice(deviceTable);
      expect(tableToIPC(back, 'stream')).toEqual(tableToIPC(table, 'stream'));
    });

    it('reads a stream from a CudaBuffer or a BufferReader, into a given HostBuffer', () => {
      const table = recordBatchTable(1000);
      const bytes = tableToIPC(table, 'stream');
      const dbuf = context.bufferFromData(bytes);
      const host = newHostBuffer(bytes.byteLength + 16);
      const back = tableFromDevice(dbuf, { output: host });
      expect(back.getChild('f0')?.toArray()).toEqual(table.getChild('f0')?.toArray());
      // the table views the HostBuffer: no copy
      expect(back.getChild('f0')?.data[0]?.values.buffer).toBe(host.bytes.buffer);
      const reader = new BufferReader(dbuf);
      expect(tableFromDevice(reader).numRows).toBe(1000);
      expect(() => tableFromDevice(dbuf, { output: newHostBuffer(8) })).toThrow(RangeError);
      expect(() => tableFromDevice(dbuf, { output: 'fast' as never })).toThrow(TypeError);
    });

    it("copies a table read back into pinned memory straight from it ('auto' staging)", () => {
      const table = recordBatchTable(200_000);
      const first = tableToDevice(table, context);
      const pinnedTable = tableFromDevice(first, { output: 'pinned' });
      const second = tableToDevice(pinnedTable, context, { staging: 'auto' });
      expect(second.buffer.equals(first.buffer)).toBe(true);
      first.close();
      second.close();
    });

    it('handles an empty table', () => {
      const empty = new Table(new Schema([new Field('a', new Int32())]));
      using deviceTable = tableToDevice(empty, context);
      expect(deviceTable.numRows).toBe(0);
      expect(deviceTable.buffer.copyToHost()).toEqual(tableToIPC(empty, 'stream'));
      expect(tableFromDevice(deviceTable).numRows).toBe(0);
    });
  });
});
