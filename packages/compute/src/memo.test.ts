import { createReferenceDriver } from '@cumem/testing';
import { describe, expect, it } from 'vitest';
import { DriverMemo, Memo } from './memo.js';

describe('Memo and DriverMemo', () => {
  it('make each value once per key, and keep it', () => {
    const made: object[] = [];
    const memo = new Memo((key: object) => {
      made.push(key);
      return { of: key };
    });
    const a = {};
    const b = {};
    expect(memo.get(a)).toBe(memo.get(a));
    expect(memo.get(b)).not.toBe(memo.get(a));
    expect(made).toEqual([a, b]);
  });

  it('keep values apart per driver and key', () => {
    const calls: string[] = [];
    const memo = new DriverMemo((driver, ordinal: number) => {
      calls.push(`${driver.name} ${ordinal}`);
      return { ordinal };
    });
    const first = createReferenceDriver();
    const second = createReferenceDriver();
    expect(memo.get(first, 0)).toBe(memo.get(first, 0));
    expect(memo.get(first, 1)).not.toBe(memo.get(first, 0));
    expect(memo.get(second, 0)).not.toBe(memo.get(first, 0));
    expect(calls).toHaveLength(3);
  });
});
