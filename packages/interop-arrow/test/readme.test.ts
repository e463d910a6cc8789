import { useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { tableFromArrays } from 'apache-arrow';
import { expect, it } from 'vitest';
import {
  Context,
  hostBufferOf,
  newHostArray,
  newHostBuffer,
  tableFromDevice,
  tableToDevice,
} from '../src/index.js';

// The README example, on the reference driver (the README's code, plus assertions).
it('the README example runs', () => {
  useDriver(createReferenceDriver());
  const context = new Context(0);
  using buffer = context.bufferFromData(Uint8Array.of(1, 2, 3, 4));
  buffer.copyFromHost(Uint8Array.of(9, 9), { position: 2 });
  expect(buffer.hex()).toBe('01020909');
  expect(buffer.slice(1, 100).size).toBe(3);
  const table = tableFromArrays({
    id: Int32Array.from([1, 2, 3]),
    score: Float64Array.from([0.5, 1.5, 2.5]),
  });
  using onDevice = tableToDevice(table, context);
  const values = onDevice.getColumn('score')?.chunks[0]?.buffers[1];
  expect(values?.length).toBe(24);
  const back = tableFromDevice(onDevice);
  expect([...(back.getChild('score')?.toArray() ?? [])]).toEqual([0.5, 1.5, 2.5]);
  const staging = newHostBuffer(64 * 1024 * 1024);
  tableToDevice(table, context, { staging }).close();
  staging.close();

  const n = 1_000_000;
  const ids = newHostArray(Int32Array, n);
  const scores = newHostArray(Float64Array, n);
  for (let i = 0; i < n; i++) {
    ids[i] = i;
    scores[i] = i / 2;
  }
  const pinnedTable = tableFromArrays({ id: ids, score: scores });
  const scoreValues = pinnedTable.getChild('score')?.data[0]?.values ?? new Float64Array(0);
  expect(hostBufferOf(scoreValues)?.size).toBe(8_000_000);
  using fast = tableToDevice(pinnedTable, context);
  expect(fast.columnBuffer('score', 1).copyToHost({ position: 8 * (n - 1) })).toEqual(
    new Uint8Array(Float64Array.of((n - 1) / 2).buffer),
  );

  using deviceStream = context.deviceBuffer(fast.byteLength);
  using hostStream = newHostBuffer(fast.byteLength);
  for (let round = 0; round < 2; round++) {
    using upload = tableToDevice(pinnedTable, context, { output: deviceStream });
    expect(upload.buffer.parent).toBe(deviceStream);
    const again = tableFromDevice(upload, { output: hostStream });
    expect(again.getChild('score')?.get(n - 1)).toBe(499999.5);
  }
});
