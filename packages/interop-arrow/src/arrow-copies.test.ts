// An Arrow object from another copy of apache-arrow is refused with a TypeError naming both
// versions, never turned into an empty device table (Arrow JS writes nothing for it). The
// tarball smoke test (scripts/smoke-tarballs.mjs) does the same with a real second copy.

import { useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { tableFromArrays } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { arrowVersion } from './arrow-copies.js';
import { Context } from './context/context.js';
import { readRecordBatch, serializeRecordBatch } from './table/device-message.js';
import { tableToDevice } from './table/device-table.js';

/** The object as another apache-arrow makes it: the same fields and methods, other classes. */
function fromAnotherCopy<T extends object>(value: T): T {
  const prototype: object = {};
  for (let p = Object.getPrototypeOf(value); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(p))) {
      if (!Object.hasOwn(prototype, key)) Object.defineProperty(prototype, key, descriptor);
    }
  }
  return Object.assign(Object.create(prototype), value) as T;
}

describe('Arrow objects from another copy of apache-arrow', () => {
  let context: Context;
  beforeAll(() => {
    useDriver(createReferenceDriver());
    context = new Context(0);
  });
  const table = tableFromArrays({ a: Int32Array.from([1, 2, 3]) });

  it('knows its own apache-arrow version', () => {
    expect(arrowVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses a Table, a RecordBatch and a Schema with a TypeError naming the versions', () => {
    const expected = new RegExp(
      `from (apache-arrow \\d|another copy of apache-arrow).*uses apache-arrow ${arrowVersion()}`,
    );
    const batch = table.batches[0];
    if (batch === undefined) throw new Error('no batch');
    expect(() => tableToDevice(fromAnotherCopy(table), context)).toThrow(TypeError);
    expect(() => tableToDevice(fromAnotherCopy(table), context)).toThrow(expected);
    expect(() => serializeRecordBatch(fromAnotherCopy(batch), context)).toThrow(expected);
    const device = serializeRecordBatch(batch, context);
    try {
      expect(() => readRecordBatch(device, fromAnotherCopy(table.schema))).toThrow(expected);
      expect(readRecordBatch(device, table.schema).numRows).toBe(3);
    } finally {
      device.close();
    }
  });

  it('still refuses what is no Arrow object at all, with the usual TypeError', () => {
    expect(() => tableToDevice({} as never, context)).toThrow(/table must be an Arrow Table, got/);
  });
});
