import { createReferenceDriver } from '@cumem/testing';
import { describe, expect, it } from 'vitest';
import { DriverMemo } from './driver-memo.js';

describe('DriverMemo', () => {
  it('makes each value once per driver and key, and keeps it', () => {
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
