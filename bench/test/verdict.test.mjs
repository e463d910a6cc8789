import { describe, expect, it } from 'vitest';
import { judgeCheck, lowerIsBetter, median, rowVerdict, spreadOf, verdictOf } from '../verdict.mjs';

describe('spreadOf', () => {
  it('keeps every value below five rounds', () => {
    expect(spreadOf([3, 1, 2])).toEqual({ median: 2, low: 1, high: 3, n: 3, trimmed: 0 });
  });
  it('leaves out the single lowest and highest from five rounds on, the median of all', () => {
    expect(spreadOf([10, 1, 2, 3, 100])).toEqual({ median: 3, low: 2, high: 10, n: 5, trimmed: 2 });
  });
  it('ignores values that are not finite numbers', () => {
    expect(spreadOf([null, Number.NaN, 4, undefined])).toEqual({
      median: 4,
      low: 4,
      high: 4,
      n: 1,
      trimmed: 0,
    });
    expect(spreadOf([])).toBeUndefined();
  });
  it('takes the mean of the middle two for an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('verdictOf', () => {
  const five = (low, high) => ({ median: (low + high) / 2, low, high, n: 5 });
  it('reads met, missed or inconclusive for a limit from above (max kinds)', () => {
    expect(lowerIsBetter('maxRatio')).toBe(true);
    expect(verdictOf('maxRatio', 1.3, five(1.1, 1.3))).toBe('met');
    expect(verdictOf('maxRatio', 1.3, five(1.31, 1.5))).toBe('missed');
    expect(verdictOf('maxRatio', 1.3, five(1.2, 1.4))).toBe('inconclusive');
  });
  it('reads met, missed or inconclusive for a limit from below (min kinds)', () => {
    expect(lowerIsBetter('minRatio')).toBe(false);
    expect(verdictOf('minRatio', 0.97, five(0.97, 1.01))).toBe('met');
    expect(verdictOf('minRatio', 0.97, five(0.9, 0.96))).toBe('missed');
    expect(verdictOf('minSpeedup', 5, five(4, 6))).toBe('inconclusive');
  });
  it('is inconclusive with fewer processes than asked, however clear', () => {
    expect(verdictOf('maxRatio', 2, { median: 1, low: 1, high: 1, n: 4 })).toBe('inconclusive');
    expect(verdictOf('maxRatio', 2, { median: 1, low: 1, high: 1, n: 1 }, 1)).toBe('met');
    expect(verdictOf('maxRatio', 2, undefined)).toBe('inconclusive');
  });
});

describe('rowVerdict', () => {
  it('is missed when any check is missed, met when all are, else inconclusive', () => {
    expect(rowVerdict(['met', 'missed', 'inconclusive'])).toBe('missed');
    expect(rowVerdict(['met', 'met'])).toBe('met');
    expect(rowVerdict(['met', 'inconclusive'])).toBe('inconclusive');
  });
  it('leaves out checks limited to other devices', () => {
    expect(rowVerdict(['met', 'notApplicable'])).toBe('met');
    expect(rowVerdict(['notApplicable'])).toBeNull();
  });
});

describe('judgeCheck', () => {
  const check = { impl: 'ffi', kind: 'maxRatio', value: 1.3 };
  const rounds = (values) => values.map((measured) => ({ ...check, applicable: true, measured }));
  it('judges the spread after the outlier rule, not the single worst process', () => {
    // One process in the host's slow mode (2.0) does not decide the verdict.
    const judged = judgeCheck(check, rounds([1.1, 1.15, 1.2, 1.25, 2.0]));
    expect(judged).toMatchObject({
      verdict: 'met',
      ok: true,
      processes: 5,
      measured: 1.2,
      spread: [1.15, 1.25],
    });
  });
  it('says how many processes measured it when too few did', () => {
    const judged = judgeCheck(check, [...rounds([1.1, 1.1, 1.1]), { ...check, applicable: true, ok: false }]);
    expect(judged.verdict).toBe('inconclusive');
    expect(judged.ok).toBeNull();
    expect(judged.note).toMatch(/3 of the 5 processes/);
  });
  it('is not applicable when every round says so (a check for another device)', () => {
    const judged = judgeCheck(check, [{ applicable: false }, { applicable: false }]);
    expect(judged).toMatchObject({ applicable: false, verdict: 'notApplicable', ok: null });
  });
});
