// Fuzzing of the Arrow IPC readers against the reference driver: valid record batch messages
// mutated byte by byte, and random bytes, must come back as a RecordBatch or a typed error
// (TypeError, RangeError, CudaStateError), never a crash, a hang or another exception (the
// engine's own TypeErrors, "Cannot read properties of ..." and kin, included: the shared
// isTypedError of @cumem/testing refuses them) — and a
// RecordBatch or Table that comes back must pass a full, independent validation
// (test/arrow-validation.ts): issue 21 found 55 of 1,000 single-byte corruptions returning
// batches whose List offsets descended or pointed past the child values. Seeded, so a failure
// reproduces; the runs cover that rate many times over.
import { useDriver } from '@cumem/memory';
import { createReferenceDriver, isTypedError } from '@cumem/testing';
import {
  Field,
  Float64,
  Int32,
  List,
  type RecordBatch,
  type Schema,
  Table,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateFully } from '../../test/arrow-validation.js';
import { BufferReader } from '../buffer/buffer-reader.js';
import type { CudaBuffer } from '../buffer/cuda-buffer.js';
import { Context } from '../context/context.js';
import { readMessage, readRecordBatch, serializeRecordBatch } from './device-message.js';
import { tableFromDevice, tableToDevice } from './device-table.js';

/** Copies of `bytes` with `minEdits` to `maxEdits` bytes set to arbitrary values. */
function mutated(bytes: Uint8Array, minEdits: number, maxEdits: number): fc.Arbitrary<Uint8Array> {
  return fc
    .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: minEdits, maxLength: maxEdits })
    .map((edits) => {
      const copy = bytes.slice();
      for (const [position, value] of edits) copy[position % copy.byteLength] = value;
      return copy;
    });
}

/**
 * Reads `bytes` from device memory with `read`, then touches every value as a caller would (a
 * result that only looks valid fails here): anything but a typed error fails the case.
 */
function readAndTouch(
  context: Context,
  bytes: Uint8Array,
  read: (device: CudaBuffer) => Table | RecordBatch,
): void {
  const device = context.bufferFromData(bytes);
  try {
    const result = read(device);
    validateFully(result);
    for (const field of result.schema.fields) result.getChild(field.name)?.toArray();
    for (const row of result) void row?.toJSON();
  } catch (error) {
    if (!isTypedError(error)) throw error;
  } finally {
    device.close();
  }
}

function sampleTable(): Table {
  return new Table({
    id: vectorFromArray([1, 2, null, 4, 5], new Int32()),
    value: vectorFromArray([0.5, null, 2.5, 3.5, 9], new Float64()),
    name: vectorFromArray(['a', 'bcd', null, '', 'xyz'], new Utf8()),
    tags: vectorFromArray([[1, 2], [], null, [3], [4, 5, 6]], new List(new Field('item', new Int32(), true))),
  });
}

describe('fuzz: Arrow IPC messages read from device memory (reference driver)', () => {
  let context: Context;
  let valid: Uint8Array;
  let schema: Schema;

  beforeAll(() => {
    useDriver(createReferenceDriver());
    context = new Context(0);
    const table = sampleTable();
    schema = table.schema;
    const batch = table.batches[0];
    if (!batch) throw new Error('no batch');
    const device = serializeRecordBatch(batch, context);
    valid = device.copyToHost();
    device.close();
  });

  const readAll = (bytes: Uint8Array) =>
    readAndTouch(context, bytes, (device) => readRecordBatch(device, schema));

  it('reads the unmutated message', () => {
    const device = context.bufferFromData(valid);
    expect(readRecordBatch(device, schema).numRows).toBe(5);
    device.close();
  });

  it('flipping any one byte of a valid record batch message gives a batch or a typed error', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1 << 20 }), fc.integer({ min: 1, max: 255 }), (position, xor) => {
        const bytes = valid.slice();
        const at = position % bytes.byteLength;
        bytes[at] = (bytes[at] as number) ^ xor;
        readAll(bytes);
      }),
      { numRuns: 2000, seed: 21 },
    );
  });

  it('every byte of the body set to each of several values (exhaustive over offsets and lengths)', () => {
    const metadataEnd = 8 + new DataView(valid.buffer, valid.byteOffset).getInt32(4, true);
    for (let at = metadataEnd; at < valid.byteLength; at++) {
      const original = valid[at] as number;
      for (const value of [0x00, 0x01, 0x7f, 0x80, 0xff, original ^ 0x01, (original + 0x10) & 0xff]) {
        const bytes = valid.slice();
        bytes[at] = value;
        readAll(bytes);
      }
    }
  });

  it('every single byte set to 0xff or 0x7f (exhaustive over the metadata)', () => {
    const metadataEnd = 8 + new DataView(valid.buffer, valid.byteOffset).getInt32(4, true);
    for (let at = 0; at < metadataEnd; at++) {
      for (const value of [0x00, 0x7f, 0xff]) {
        const bytes = valid.slice();
        bytes[at] = value;
        readAll(bytes);
      }
    }
  });

  it('several mutated bytes at once give a batch or a typed error', () => {
    fc.assert(fc.property(mutated(valid, 2, 16), readAll), { numRuns: 1500, seed: 2121 });
  });

  it('random bytes through readMessage and readRecordBatch give only typed errors', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 512 }), fc.boolean(), (random, framed) => {
        const bytes = framed && random.byteLength >= 8 ? random.slice() : random;
        if (framed && bytes.byteLength >= 8) {
          const view = new DataView(bytes.buffer, bytes.byteOffset);
          view.setInt32(0, -1, true);
          view.setInt32(4, Math.min(view.getUint32(4, true) % 512, bytes.byteLength - 8), true);
        }
        const device = context.bufferFromData(bytes.byteLength === 0 ? new Uint8Array(1) : bytes);
        try {
          const reader = new BufferReader(device);
          for (let i = 0; i < 4 && readMessage(reader); i++);
          readRecordBatch(device, schema);
        } catch (error) {
          if (!isTypedError(error)) throw error;
        } finally {
          device.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  describe('whole streams (tableFromDevice)', () => {
    let stream: Uint8Array;

    beforeAll(() => {
      const sample = sampleTable();
      const one = new Table({
        id: sample.getChild('id') as never,
        name: sample.getChild('name') as never,
        tags: sample.getChild('tags') as never,
        kind: vectorFromArray(['x', 'y', 'x', null, 'z']),
      });
      const table = one.concat(one.slice(1, 4));
      const device = tableToDevice(table, context);
      stream = device.buffer.copyToHost();
      device.close();
    });

    const readTable = (bytes: Uint8Array) =>
      readAndTouch(context, bytes.byteLength === 0 ? new Uint8Array(1) : bytes, (device) =>
        tableFromDevice(device, { output: 'pageable' }),
      );

    it('reads the unmutated stream', () => {
      const device = context.bufferFromData(stream);
      expect(tableFromDevice(device, { output: 'pageable' }).numRows).toBe(8);
      device.close();
    });

    it('every body byte of each message set to 0x00, 0x7f, 0xff or off by one gives a table or a typed error', () => {
      for (let at = 0; at < stream.byteLength; at++) {
        const original = stream[at] as number;
        for (const value of [0x00, 0x7f, 0xff, (original + 1) & 0xff]) {
          if (value === original) continue;
          const bytes = stream.slice();
          bytes[at] = value;
          readTable(bytes);
        }
      }
    });

    it('mutated bytes of a stream with dictionary, list and string columns give a table or a typed error', () => {
      fc.assert(fc.property(mutated(stream, 1, 12), readTable), { numRuns: 1000, seed: 212 });
    });

    it('random bytes give only typed errors', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => readTable(bytes)),
        { numRuns: 200 },
      );
    });
  });
});
