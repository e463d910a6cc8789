// tableToDevice({ output }): the stream written into device memory the caller keeps, no
// allocation; the DeviceTable views it; hostile outputs refused before any driver call.
import { CudaStateError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { Float64, makeVector, Table, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, countedContext, sameBytes } from '../../test/support.js';
import { Context } from '../context/context.js';
import { tableFromDevice, tableToDevice } from './device-table.js';
import { layoutTable } from './ipc-layout.js';

function table(rows: number, seed: number): Table {
  return new Table({
    id: makeVector(Int32Array.from({ length: rows }, (_, i) => i + seed)),
    value: vectorFromArray(
      Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : i / 4 + seed)),
      new Float64(),
    ),
    name: vectorFromArray(
      Array.from({ length: rows }, (_, i) => `r${i + seed}`),
      new Utf8(),
    ),
  });
}

function sameTable(actual: Table, expected: Table): boolean {
  return sameBytes(tableToIPC(actual, 'stream'), tableToIPC(expected, 'stream'));
}

describeEachDriver(adapters, 'tableToDevice into an output CudaBuffer', (entry) => {
  let context: Context;
  let log: DriverCallLog;
  beforeAll(() => {
    ({ context, log } = countedContext(entry.driver));
  });

  it('writes the stream into the output: no allocation, a view of it, equal round trip', () => {
    const first = table(1000, 1);
    const second = table(700, 2);
    using output = context.deviceBuffer(layoutTable(first).byteLength + 4096);
    const before = context.bytesAllocated;
    log.reset();
    const device = tableToDevice(first, context, { output });
    expect(log.calls.filter((name) => name.startsWith('memAlloc'))).toEqual([]);
    expect(context.bytesAllocated).toBe(before);
    expect(device.buffer.parent).toBe(output);
    expect(device.buffer.address).toBe(output.address);
    expect(device.byteLength).toBe(layoutTable(first).byteLength);
    expect(sameTable(tableFromDevice(device), first)).toBe(true);
    // Closing the DeviceTable closes only its view: the output takes the next upload.
    device.close();
    expect(output.isClosed).toBe(false);
    using again = tableToDevice(second, context, { output });
    expect(sameTable(tableFromDevice(again), second)).toBe(true);
  });

  it('closing the output closes the DeviceTable read from it', () => {
    const output = context.deviceBuffer(layoutTable(table(10, 0)).byteLength);
    const device = tableToDevice(table(10, 0), context, { output });
    output.close();
    expect(device.buffer.isClosed).toBe(true);
    expect(() => tableFromDevice(device)).toThrow(CudaStateError);
  });

  it('refuses hostile outputs before any driver call', () => {
    const small = table(100, 0);
    const need = layoutTable(small).byteLength;
    using tooSmall = context.deviceBuffer(need - 8);
    const closed = context.deviceBuffer(need);
    closed.close();
    using real = context.deviceBuffer(need);
    const readOnly = context.bufferFromObject({
      cudaArrayInterface: { shape: [need], typestr: '|u1', data: [real.address, true], version: 3 },
    });
    const cases: [unknown, ErrorConstructor | typeof CudaStateError][] = [
      [{ address: real.address, size: need }, TypeError],
      [new Uint8Array(need), TypeError],
      [null, TypeError],
      [closed, CudaStateError],
      [tooSmall, RangeError],
      [readOnly, TypeError],
    ];
    for (const [output, error] of cases) {
      log.reset();
      expect(() => tableToDevice(small, context, { output } as never)).toThrow(error);
      expect(log.calls).toEqual([]);
    }
  });
});

describe('tableToDevice output of another driver (reference)', () => {
  const mine = createReferenceDriver();
  const other = createReferenceDriver();
  let context: Context;
  let foreign: Context;
  beforeAll(() => {
    useDriver(other);
    foreign = new Context(0);
    useDriver(mine);
    context = new Context(0);
  });
  afterAll(() => {
    useDriver(mine);
  });

  it('is a CudaStateError before any copy', () => {
    const small = table(10, 0);
    using output = foreign.deviceBuffer(layoutTable(small).byteLength);
    expect(() => tableToDevice(small, context, { output })).toThrow(/driver/);
    expect(() => tableToDevice(small, context, { output })).toThrow(CudaStateError);
  });
});
