import { describe, expect, it } from 'vitest';
import { compareRow, comparisonLines, comparisonOf, oneTreeOnlyText } from '../compare.mjs';

const round = (head, base, id = 'r') => ({
  head: { rows: { [id]: { value: head } } },
  base: { rows: { [id]: { value: base } } },
});

describe('compareRow', () => {
  const time = { id: 'r', unit: 'ns' };
  const bandwidth = { id: 'r', unit: 'GB/s' };
  it('reads worse when head is slower in the whole spread, for times and for bandwidths', () => {
    const slower = [110, 112, 108, 111, 150].map((head) => round(head, 100));
    expect(compareRow(time, slower, 'ffi')).toMatchObject({ verdict: 'worse', processes: 5 });
    const lessBandwidth = [48, 47, 49, 48, 30].map((head) => round(head, 50));
    expect(compareRow(bandwidth, lessBandwidth, 'napi').verdict).toBe('worse');
  });
  it('reads better when head is faster in the whole spread, same when the spread straddles 1', () => {
    expect(
      compareRow(
        time,
        [90, 91, 92, 89, 99].map((head) => round(head, 100)),
        'ffi',
      ).verdict,
    ).toBe('better');
    expect(
      compareRow(
        time,
        [95, 105, 99, 101, 100].map((head) => round(head, 100)),
        'ffi',
      ).verdict,
    ).toBe('same');
  });
  it('is inconclusive with fewer processes than the verdict needs, and skips failed ones', () => {
    const rounds = [
      round(110, 100),
      round(110, 100),
      { head: { rows: { r: { error: 'x' } } }, base: { rows: {} } },
    ];
    expect(compareRow(time, rounds, 'ffi')).toMatchObject({ verdict: 'inconclusive', processes: 2 });
  });
  it('names a row only one build wrote (added or removed between the commits), not a failure', () => {
    const headOnly = [1, 2, 3, 4, 5].map(() => ({
      head: { rows: { r: { value: 100 } } },
      base: { rows: { other: { value: 1 } } },
    }));
    expect(compareRow(time, headOnly, 'ffi')).toMatchObject({ verdict: 'head only', processes: 0 });
    const baseOnly = [1, 2].map(() => ({ head: { rows: {} }, base: { rows: { r: { value: 100 } } } }));
    expect(compareRow(time, baseOnly, 'napi').verdict).toBe('base only');
    // A row the baseline wrote with an error, or a baseline process that failed, is no such row.
    const baseFailed = [
      { head: { rows: { r: { value: 100 } } }, base: { rows: { r: { error: 'TypeError' } } } },
      { head: { rows: { r: { value: 100 } } }, base: { rows: {}, error: 'exited with 1' } },
    ];
    expect(compareRow(time, baseFailed, 'ffi').verdict).toBe('inconclusive');
    expect(compareRow(time, [baseFailed[1]], 'ffi').verdict).toBe('inconclusive');
  });
});

describe('comparisonOf', () => {
  const rows = [
    { id: 'a.time', suite: 'a', unit: 'ns' },
    { id: 'b.time', suite: 'b', unit: 'ns' },
  ];
  const unit = (head, base) => ({
    impls: ['ffi'],
    baseImpls: ['ffi'],
    ffi: { rows: { 'a.time': { value: head } } },
    base: { ffi: { rows: { 'a.time': { value: base } } } },
    seconds: 5,
  });
  it('judges head against base from the units of the bench rounds, with the same rule', () => {
    const rawRounds = [110, 111, 109, 112, 150].map((head) => ({
      a: unit(head, 100),
      b: { impls: ['ffi'], seconds: 1, ffi: { rows: {} } },
    }));
    const comparison = comparisonOf(rows, rawRounds, {
      suites: ['a', 'b'],
      head: 'h',
      base: 'b',
      impls: ['ffi'],
    });
    // Suite b ran without a baseline: not compared.
    expect(comparison.rows).toHaveLength(1);
    expect(comparison.rows[0]).toMatchObject({ id: 'a.time', verdict: 'worse', processes: 5 });
    expect(comparison.summary.worse).toEqual(['a.time ffi']);
  });
  it('names baseline processes that failed', () => {
    const failed = unit(100, 100);
    failed.base.ffi = { rows: {}, error: 'exited with 1' };
    const comparison = comparisonOf(rows, [{ a: failed }], {
      suites: ['a'],
      head: 'h',
      base: 'b',
      impls: ['ffi'],
    });
    expect(comparison.errors).toEqual(['a unit 1 ffi base: exited with 1']);
    expect(comparison.rows[0].verdict).toBe('inconclusive');
  });
  it('lists the rows only one build has in the summary and the lines', () => {
    const added = unit(100, 100);
    added.ffi.rows['b.new'] = { value: 5 };
    const comparison = comparisonOf([...rows, { id: 'b.new', suite: 'a', unit: 'ns' }], [{ a: added }], {
      suites: ['a'],
      head: 'h',
      base: 'b',
      impls: ['ffi'],
    });
    expect(comparison.summary.oneTreeOnly).toEqual(['b.new ffi (head only)']);
    expect(comparisonLines(comparison)).toContain('head only    b.new ffi: not measured by the other build');
    expect(oneTreeOnlyText(comparison.summary)).toBe('; only one build: b.new ffi (head only)');
  });
});
