// tableFromDevice's pipelined read (streams of PIPELINED_READ_MIN_BYTES or more into page-locked
// memory): the same Table and the same errors as copying the whole stream first, whatever the
// source; on a driver whose copies land only when waited for, no byte is read before it lands
// and nothing is left in flight after a return or an error.
import { CudaStateError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { createReferenceDriver, isTypedError } from '@cumem/testing';
import { describeEachDriver } from '@cumem/testing/vitest';
import {
  Dictionary,
  Float64,
  Int32,
  makeVector,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { deferredCopies } from '../../test/deferred-copies.js';
import { adapters, contextWith, sameBytes } from '../../test/support.js';
import { BufferReader } from '../buffer/buffer-reader.js';
import type { CudaBuffer } from '../buffer/cuda-buffer.js';
import { Context } from '../context/context.js';
import { newHostBuffer } from '../host/host-buffer.js';
import { checkIpcStream } from '../validation/ipc-stream-check.js';
import { arrowCall } from '../validation/message-decode.js';
import { DeviceTable, tableFromDevice, tableToDevice } from './device-table.js';
import { PIPELINED_READ_MIN_BYTES } from './pipelined-read.js';

// int32, float64 with nulls, utf8 with nulls and a dictionary column: 100k rows are ~2.2 MB.
function bigTable(rows: number, seed = 0): Table {
  const ids = Int32Array.from({ length: rows }, (_, i) => i * 7 + seed);
  const values = Array.from({ length: rows }, (_, i) => (i % 11 === 0 ? null : i * 0.25 + seed));
  const names = Array.from({ length: rows }, (_, i) => (i % 13 === 0 ? null : `n${(i + seed) % 997}`));
  const kinds = Array.from({ length: rows }, (_, i) => ['a', 'b', 'c', null][(i + seed) % 4] ?? null);
  const table = {
    id: makeVector(ids),
    value: vectorFromArray(values, new Float64()),
    name: vectorFromArray(names, new Utf8()),
    kind: vectorFromArray(kinds, new Dictionary(new Utf8(), new Int32())),
  };
  return new Table(table);
}

function expectSameTable(actual: Table, expected: Table): void {
  expect(actual.numRows).toBe(expected.numRows);
  expect(sameBytes(tableToIPC(actual, 'stream'), tableToIPC(expected, 'stream'))).toBe(true);
  for (const field of expected.schema.fields) {
    expect(actual.getChild(field.name)?.nullCount).toBe(expected.getChild(field.name)?.nullCount);
  }
}

/** Where the first value of the `name` column's offsets sits in the device stream. */
function nameOffsetsAt(device: DeviceTable): number {
  const range = device.getColumn('name')?.chunks[0]?.buffers[1];
  if (!range || range.length < 8) throw new Error('the test table has no name offsets');
  return range.offset;
}

const small = bigTable(100_000);
const twoBatches = bigTable(60_000, 1).concat(bigTable(50_000, 2));

describeEachDriver(adapters, 'tableFromDevice pipelined', (entry) => {
  let context: Context;
  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  it('the test tables are large enough to take the pipelined read', () => {
    expect(tableToIPC(small, 'stream').byteLength).toBeGreaterThanOrEqual(PIPELINED_READ_MIN_BYTES);
    expect(twoBatches.batches.length).toBe(2);
  });

  it('gives the same Table from a DeviceTable, a CudaBuffer and a BufferReader', () => {
    for (const table of [small, twoBatches]) {
      using device = tableToDevice(table, context);
      expectSameTable(tableFromDevice(device), table);
      expectSameTable(tableFromDevice(device.buffer), table);
      const reader = new BufferReader(device.buffer);
      expectSameTable(tableFromDevice(reader), table);
    }
  });

  it('reuses an output HostBuffer: each read gives its own stream', () => {
    using first = tableToDevice(small, context);
    using second = tableToDevice(twoBatches, context);
    using output = newHostBuffer(Math.max(first.byteLength, second.byteLength) + 4096);
    expectSameTable(tableFromDevice(first, { output }), small);
    expectSameTable(tableFromDevice(second, { output }), twoBatches);
    expectSameTable(tableFromDevice(first, { output }), small);
  });

  it('a value fault in a body (descending offsets) is a RangeError after the copy', () => {
    using device = tableToDevice(small, context);
    device.buffer.copyFromHost(new Int32Array([1 << 30, 5]), { position: nameOffsetsAt(device) + 4 });
    using output = newHostBuffer(device.byteLength);
    expect(() => tableFromDevice(device, { output })).toThrow(/offset/);
    expect(() => tableFromDevice(device.buffer)).toThrow(RangeError);
  });

  it('a framing fault (a metadata length past the end) is a RangeError', () => {
    using device = tableToDevice(twoBatches, context);
    const second = device.messages[2];
    if (!second) throw new Error('no second message');
    device.buffer.copyFromHost(new Int32Array([-1, 0x7fff_fff0]), { position: second.offset });
    expect(() => tableFromDevice(device)).toThrow(RangeError);
  });

  it('a DeviceTable whose bytes were overwritten is read from its bytes, not its layout', () => {
    using device = tableToDevice(twoBatches, context);
    const other = tableToIPC(small, 'stream');
    expect(other.byteLength).toBeLessThanOrEqual(device.byteLength);
    device.buffer.copyFromHost(other);
    expectSameTable(tableFromDevice(device), small);
  });

  it("a DeviceTable's layout is only a hint: lying, throwing or closing getters", () => {
    using device = tableToDevice(small, context);
    const lying = [
      { offset: -5, metadataLength: 1e300, byteLength: Number.NaN },
      { offset: 3, metadataLength: 2 ** 53, byteLength: 7 },
      { offset: device.byteLength - 4, metadataLength: 100, byteLength: -1 },
    ];
    const throwing = [
      {
        get offset(): number {
          throw new Error('a getter of the caller');
        },
      },
    ];
    for (const messages of [lying, throwing, [], [null, 1, 'x']]) {
      const fake = new DeviceTable(device.buffer, small.schema, messages as never, device.batches);
      expectSameTable(tableFromDevice(fake), small);
    }
    // A getter that closes the output runs before the output's bytes are taken.
    const output = newHostBuffer(device.byteLength);
    const closing = [
      {
        get offset(): number {
          output.close();
          return 0;
        },
        metadataLength: 8,
        byteLength: 8,
      },
    ];
    const fake = new DeviceTable(device.buffer, small.schema, closing as never, device.batches);
    expect(() => tableFromDevice(fake, { output })).toThrow(CudaStateError);
  });

  it('a closed source throws CudaStateError and leaves the output untouched', () => {
    const device = tableToDevice(small, context);
    const size = device.byteLength;
    device.close();
    using output = newHostBuffer(size);
    output.bytes.fill(0xab);
    expect(() => tableFromDevice(device, { output })).toThrow(CudaStateError);
    expect(output.bytes.every((byte) => byte === 0xab)).toBe(true);
    const view: CudaBuffer = context.deviceBuffer(size);
    view.close();
    expect(() => tableFromDevice(view, { output })).toThrow(CudaStateError);
  });
});

describe('tableFromDevice pipelined, on a driver whose copies land only when waited for', () => {
  const { driver, queue } = deferredCopies(createReferenceDriver());
  let context: Context;
  beforeAll(() => {
    useDriver(driver);
    context = new Context(0);
  });

  it('reads no byte before it landed, and returns with every copy landed', () => {
    for (const table of [small, twoBatches]) {
      using device = tableToDevice(table, context);
      using output = newHostBuffer(device.byteLength);
      output.bytes.fill(0xab);
      const before = queue.queued;
      expectSameTable(tableFromDevice(device, { output }), table);
      expect(queue.pending).toBe(0);
      // The framing, then the bodies in pieces: more than one copy, each waited for.
      expect(queue.queued - before).toBeGreaterThan(1);
      expectSameTable(tableFromDevice(device.buffer, { output }), table);
      expect(queue.pending).toBe(0);
    }
  });

  it('a DeviceTable whose bytes changed since: its layout is not trusted, the bytes are read once landed', () => {
    using device = tableToDevice(twoBatches, context);
    device.buffer.copyFromHost(tableToIPC(small, 'stream'));
    using output = newHostBuffer(device.byteLength);
    output.bytes.fill(0xab);
    expectSameTable(tableFromDevice(device, { output }), small);
    expect(queue.pending).toBe(0);
  });

  it('any corrupted stream gives what the whole-stream check and tableFromIPC give', () => {
    using device = tableToDevice(twoBatches, context);
    const valid = device.buffer.toBytes();
    // Bytes of the framing (every message's prefix and metadata) and of the name offsets.
    const spots: number[] = [];
    for (const message of device.messages) {
      for (let at = message.offset; at < message.offset + message.metadataLength; at += 7) spots.push(at);
    }
    for (const batch of device.batches) {
      const offsets = batch.columns[2]?.buffers[1];
      if (offsets) for (let i = 0; i < 64; i += 3) spots.push(offsets.offset + i);
    }
    const outcome = (read: () => Table): string => {
      try {
        return `table ${sameBytes(tableToIPC(read(), 'stream'), tableToIPC(twoBatches, 'stream'))}`;
      } catch (error) {
        // The engine's own TypeErrors ("Cannot read properties of ...") are not typed errors.
        return isTypedError(error) ? (error as Error).name : `untyped ${error}`;
      }
    };
    using output = newHostBuffer(valid.byteLength);
    for (const at of spots) {
      for (const value of [0x00, 0xff, (valid[at] ?? 0) ^ 0x10]) {
        const bytes = valid.slice();
        bytes[at] = value;
        device.buffer.copyFromHost(bytes);
        output.bytes.fill(0xab);
        const pipelined = outcome(() => tableFromDevice(device, { output }));
        expect(queue.pending).toBe(0);
        const serial = outcome(() => {
          checkIpcStream(bytes);
          return arrowCall(() => tableFromIPC(bytes), 'the table');
        });
        expect(pipelined, `byte ${at} set to ${value}`).toBe(serial);
      }
    }
  });

  it('many batches: more framing fetches than it makes one by one, more bodies than pieces', () => {
    // 24 batches of ~80 KB (each past the 64 KiB framing window) and 120 batches of ~12 KB.
    for (const [batches, rows] of [
      [24, 4000],
      [120, 600],
    ] as const) {
      let table = bigTable(rows, 0);
      for (let i = 1; i < batches; i++) table = table.concat(bigTable(rows, i));
      expect(table.batches.length).toBe(batches);
      using device = tableToDevice(table, context);
      using output = newHostBuffer(device.byteLength);
      for (const source of [device, device.buffer]) {
        output.bytes.fill(0xab);
        expectSameTable(tableFromDevice(source, { output }), table);
        expect(queue.pending).toBe(0);
      }
    }
  });

  it('a value fault found mid-read leaves no copy in flight', () => {
    using device = tableToDevice(twoBatches, context);
    device.buffer.copyFromHost(new Int32Array([1 << 30, 5]), { position: nameOffsetsAt(device) + 4 });
    using output = newHostBuffer(device.byteLength);
    expect(() => tableFromDevice(device, { output })).toThrow(/offset/);
    expect(queue.pending).toBe(0);
  });

  it('a metadata fault found before or after the bodies were queued leaves no copy in flight', () => {
    using device = tableToDevice(small, context);
    // The batch's header claims a column longer than the batch: found before Arrow JS reads it.
    const batch = device.messages[1];
    if (!batch) throw new Error('no batch message');
    const framing = device.buffer.copyToHost({ position: batch.offset, nbytes: batch.metadataLength });
    const view = new DataView(framing.buffer, framing.byteOffset, framing.byteLength);
    // Flip a byte of the metadata until the checks refuse it (the first few may be padding).
    let thrown: unknown;
    for (let at = framing.byteLength - 1; at >= 8 && thrown === undefined; at--) {
      const original = view.getUint8(at);
      device.buffer.copyFromHost(new Uint8Array([original ^ 0x40]), { position: batch.offset + at });
      try {
        tableFromDevice(device);
      } catch (error) {
        thrown = error;
      }
      expect(queue.pending).toBe(0);
      device.buffer.copyFromHost(new Uint8Array([original]), { position: batch.offset + at });
    }
    // Typed errors only: RangeError for what the checks refuse, TypeError for what Arrow JS's
    // flatbuffer reader cannot represent (an unsafe 64-bit integer); never the engine's own.
    expect(isTypedError(thrown), String(thrown)).toBe(true);
    expect(thrown instanceof RangeError || thrown instanceof TypeError).toBe(true);
  });
});
