import { describe, expect, it } from 'vitest';
import { compareRow } from '../compare.mjs';

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
});
