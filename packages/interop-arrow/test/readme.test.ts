import { useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { tableFromArrays } from 'apache-arrow';
import { expect, it } from 'vitest';
import { Context, newHostBuffer, tableFromDevice, tableToDevice } from '../src/index.js';

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
});
