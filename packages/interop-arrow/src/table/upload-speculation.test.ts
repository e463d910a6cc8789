// tableToDevice({ output }) starts the body copies of a table whose schema and numbers it has
// laid out before, ahead of Arrow JS's writer; the layout decides what the stream is, so a wrong
// prediction still leaves exactly tableToIPC's bytes.
import type { Driver } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { RecordBatch, Table, tableFromArrays, tableToIPC } from 'apache-arrow';
import { beforeAll, expect, it } from 'vitest';
import { adapters, sameBytes } from '../../test/support.js';
import { Context } from '../context/context.js';
import { newHostArray } from '../host/host-array.js';
import type { DeviceTable } from './device-table.js';
import { tableToDevice } from './device-table.js';
import { layoutTable } from './ipc-layout.js';

function pinnedTable(rows: number, seed: number): Table {
  const id = newHostArray(Int32Array, rows);
  const value = newHostArray(Float64Array, rows);
  for (let i = 0; i < rows; i++) {
    id[i] = i * 3 + seed;
    value[i] = i / 8 + seed;
  }
  return tableFromArrays({ id, value });
}

function streamOnDevice(device: DeviceTable): Uint8Array {
  return device.buffer.copyToHost();
}

/** `inner` with the byte count of every host-to-device copy recorded, in call order. */
function recordingUploads(inner: Driver): { driver: Driver; sizes: number[] } {
  const sizes: number[] = [];
  const { driver } = countingDriver(inner, (name, args) => {
    if (name === 'memcpyAsync') sizes.push(Number(args[2]));
    else if (name === 'memcpyHtoDAsync') sizes.push((args[1] as ArrayBufferView).byteLength);
  });
  return { driver, sizes };
}

describeEachDriver(adapters, 'tableToDevice({ output }) starting body copies early', (entry) => {
  let context: Context;
  let sizes: number[];
  beforeAll(() => {
    const recording = recordingUploads(entry.driver);
    sizes = recording.sizes;
    useDriver(recording.driver);
    context = new Context(0);
  });

  it('uploads the same table again with the bodies queued first, and the same bytes', () => {
    const table = pinnedTable(5000, 1);
    using output = context.deviceBuffer(layoutTable(table).byteLength + 64);
    const bodies = [5000 * 4, 5000 * 8];
    sizes.length = 0;
    tableToDevice(table, context, { output }).close();
    const cold = [...sizes];
    sizes.length = 0;
    using again = tableToDevice(table, context, { output });
    const warm = [...sizes];
    expect(sameBytes(streamOnDevice(again), tableToIPC(table, 'stream'))).toBe(true);
    // The same copies, in another order: the two bodies before the framing.
    expect([...warm].sort()).toEqual([...cold].sort());
    expect(cold.slice(0, 2)).not.toEqual(bodies);
    expect(warm.slice(0, 2)).toEqual(bodies);
  });

  it('writes the exact stream when the prediction is wrong (schema metadata changed)', () => {
    const table = pinnedTable(3000, 2);
    using output = context.deviceBuffer(layoutTable(table).byteLength + 4096);
    tableToDevice(table, context, { output }).close();
    // Same schema object, same numbers: the bodies are predicted where they were, but the
    // schema message grew, so every body of the new stream is further on.
    table.schema.metadata.set('note', 'x'.repeat(300));
    using moved = tableToDevice(table, context, { output });
    expect(moved.byteLength).toBe(layoutTable(table).byteLength);
    expect(sameBytes(streamOnDevice(moved), tableToIPC(table, 'stream'))).toBe(true);
    moved.close();
    using next = tableToDevice(table, context, { output });
    expect(sameBytes(streamOnDevice(next), tableToIPC(table, 'stream'))).toBe(true);
  });

  it('uploads another batch of the same schema and numbers, and a slice of other numbers', () => {
    const table = pinnedTable(2000, 3);
    const other = pinnedTable(2000, 4);
    const sameSchema = new Table([new RecordBatch(table.schema, other.batches[0]!.data)]);
    using output = context.deviceBuffer(layoutTable(table).byteLength);
    tableToDevice(table, context, { output }).close();
    using second = tableToDevice(sameSchema, context, { output });
    expect(sameBytes(streamOnDevice(second), tableToIPC(sameSchema, 'stream'))).toBe(true);
    second.close();
    const slice = table.slice(100, 900);
    using third = tableToDevice(slice, context, { output });
    expect(sameBytes(streamOnDevice(third), tableToIPC(slice, 'stream'))).toBe(true);
  });

  it('refuses an output too small for the stream, after waiting for the copies it started', () => {
    const table = pinnedTable(1000, 5);
    const bytes = layoutTable(table).byteLength;
    using output = context.deviceBuffer(bytes);
    tableToDevice(table, context, { output }).close();
    table.schema.metadata.set('note', 'y'.repeat(64));
    expect(() => tableToDevice(table, context, { output })).toThrow(RangeError);
    expect(output.isClosed).toBe(false);
  });
});
