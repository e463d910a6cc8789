import { describe, expect, it } from 'vitest';
import {
  ESTIMATE_MARGIN,
  expectedUnitSeconds,
  FIRST_GUESS_SECONDS_PER_PROCESS,
  fits,
  RESERVE_SECONDS,
} from '../unit-time.mjs';

describe('expectedUnitSeconds', () => {
  it('guesses from the table before a unit of the suite was timed', () => {
    expect(expectedUnitSeconds('vmm', 4)).toBe(FIRST_GUESS_SECONDS_PER_PROCESS.vmm * 4);
    expect(expectedUnitSeconds('a-new-suite', 2)).toBeGreaterThan(0);
  });
  it("scales the slowest measured process of the suite to the unit's processes", () => {
    const history = [
      { seconds: 40, impls: ['c', 'ffi', 'napi', 'cudaCore'] },
      { seconds: 90, impls: ['c', 'ffi', 'napi', 'cudaCore'], baseImpls: ['ffi', 'napi'] },
      { seconds: 'x', impls: ['c'] },
    ];
    // 90 s over 6 processes = 15 s each, the slowest; a unit of 4 processes: 60 s.
    expect(expectedUnitSeconds('memory', 4, history)).toBe(60);
  });
});

describe('fits', () => {
  it('keeps a margin and a reserve', () => {
    const expected = 100;
    const needed = expected * ESTIMATE_MARGIN + RESERVE_SECONDS;
    expect(fits(expected, needed)).toBe(true);
    expect(fits(expected, needed - 1)).toBe(false);
  });
});
