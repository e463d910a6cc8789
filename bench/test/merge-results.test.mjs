import { describe, expect, it } from 'vitest';
import { mergeResults } from '../merge-results.mjs';
import { roundsFromUnits } from '../raw-rounds.mjs';

// A real row of rows.mjs: mergeResults judges the rows of rows.mjs.
const ID = 'contract.poolAllocFree4KiB';
const unit = (c, ffi, napi) => ({
  impls: ['c', 'ffi', 'napi'],
  c: { rows: { [ID]: { value: c } } },
  ffi: { rows: { [ID]: { value: ffi } } },
  napi: { rows: { [ID]: { value: napi } } },
  seconds: 12,
});
const file = (units, date) => ({
  schema: 2,
  commit: 'abc',
  device: 'NVIDIA H200',
  date,
  seconds: 100,
  environment: {
    repetitions: { maxReps: 3, maxWarmupMs: 500, quick: false },
    verdict: { processesAsked: 5, calls: [{ date, seconds: 100 }] },
    implementations: { [`contract.ffi.${date}`]: 'note' },
  },
  rows: [{ id: 'vmm.allocateFree2MiB', suite: 'vmm', results: {}, note: 'kept by --merge' }],
  rawRounds: roundsFromUnits({ contract: units }),
});

describe('mergeResults', () => {
  it('judges the rows again from the rounds of every file and keeps rows without rounds', () => {
    const first = file([unit(700, 800, 750), unit(700, 810, 760), unit(720, 820, 760)], 'd1');
    const second = file([unit(700, 805, 755), unit(710, 800, 750)], 'd2');
    const merged = mergeResults([first, second]);
    const row = merged.rows.find((entry) => entry.id === ID);
    expect(row.processes.ffi).toEqual([800, 810, 820, 805, 800]);
    expect(row.checks.every((check) => check.processes === 5)).toBe(true);
    expect(row.verdict).toBe('met');
    expect(merged.rows.find((entry) => entry.id === 'vmm.allocateFree2MiB').note).toBe('kept by --merge');
    expect(merged.environment.verdict).toMatchObject({
      roundsDone: 5,
      unitsDone: { contract: 5 },
      mergedFiles: 2,
    });
    expect(merged.environment.verdict.calls.map((call) => call.date)).toEqual(['d1', 'd2']);
    expect(Object.keys(merged.environment.implementations)).toEqual(['contract.ffi.d1', 'contract.ffi.d2']);
    expect(merged.seconds).toBe(200);
    expect(merged.summary.met).toBe(1);
  });
  it('counts a resumed file once: its calls are not repeated', () => {
    const first = file([unit(700, 800, 750)], 'd1');
    const resumed = file([unit(700, 800, 750), unit(700, 800, 750)], 'd2');
    resumed.environment.verdict.calls = [{ date: 'd1' }, { date: 'd2' }];
    expect(mergeResults([resumed]).environment.verdict.calls).toHaveLength(2);
    expect(mergeResults([first, resumed]).environment.verdict.calls).toHaveLength(2);
  });
});
