import { describe, expect, it } from 'vitest';
import { mergeRow } from '../merge-row.mjs';
import { combineRounds } from '../rounds.mjs';

const row = {
  id: 'test.pair',
  suite: 'test',
  unit: 'ns',
  description: 'a pair',
  protocol: { iterations: 10, reps: 11, warmupReps: 1 },
  checks: [
    { impl: 'ffi', kind: 'maxRatio', value: 1.6 },
    { impl: 'napi', kind: 'maxRatio', value: 1.3 },
  ],
};
const entry = (value, reps = 3) => ({
  value,
  unit: 'ns',
  samples: [value],
  protocol: { iterations: 10, reps, warmupReps: 1 },
});
const round = (c, ffi, napi) => ({
  c: { rows: { 'test.pair': entry(c) } },
  ffi: { rows: { 'test.pair': entry(ffi) } },
  napi: { rows: { 'test.pair': entry(napi) } },
});
const caps = { reps: 3, warmupMs: 500 };

describe('combineRounds', () => {
  it('pairs each ratio with the C of its own round and reports medians and spreads', () => {
    // C moves 2x between processes; the ratio to the same round's C does not.
    const rounds = [
      round(100, 120, 110),
      round(200, 240, 220),
      round(100, 125, 112),
      round(210, 250, 230),
      round(100, 118, 108),
    ];
    const combined = combineRounds(
      row,
      rounds.map((raw) => mergeRow(row, raw, 'GPU', { caps })),
    );
    expect(combined.results.c).toBe(100);
    expect(combined.ratios.ffiVsC).toBeCloseTo(1.2, 5);
    expect(combined.spreads.ffiVsC[0]).toBeGreaterThan(1.18);
    expect(combined.spreads.ffiVsC[1]).toBeLessThan(1.25);
    expect(combined.verdict).toBe('met');
    expect(combined.pass).toBe(true);
    expect(combined.processes.ffi).toEqual([120, 240, 125, 250, 118]);
    expect(combined.protocolMismatch).toBeUndefined();
  });
  it('reads missed when the whole spread is outside, inconclusive when it straddles', () => {
    const missed = [1, 2, 3, 4, 5].map(() => round(100, 200, 150));
    expect(
      combineRounds(
        row,
        missed.map((raw) => mergeRow(row, raw, 'GPU', { caps })),
      ).verdict,
    ).toBe('missed');
    const straddles = [120, 140, 125, 135, 130].map((napi) => round(100, 110, napi));
    const combined = combineRounds(
      row,
      straddles.map((raw) => mergeRow(row, raw, 'GPU', { caps })),
    );
    expect(combined.verdict).toBe('inconclusive');
    expect(combined.checks.map((check) => check.verdict)).toEqual(['met', 'inconclusive']);
  });
  it('keeps each failed process as an error of its implementation and judges the others', () => {
    const rounds = [1, 2, 3, 4, 5].map(() => round(100, 110, 110));
    rounds[2].ffi = { rows: {}, error: 'killed' };
    const combined = combineRounds(
      row,
      rounds.map((raw) => mergeRow(row, raw, 'GPU', { caps })),
    );
    expect(combined.errors.ffi).toEqual(['process 3: killed']);
    expect(combined.checks[0]).toMatchObject({ verdict: 'inconclusive', processes: 4 });
    expect(combined.checks[1]).toMatchObject({ verdict: 'met', processes: 5 });
  });
  it('flags an implementation that timed more repetitions than the caps allow', () => {
    const raw = round(100, 110, 110);
    raw.napi.rows['test.pair'] = entry(110, 11);
    const combined = combineRounds(row, [mergeRow(row, raw, 'GPU', { caps })], { minProcesses: 1 });
    expect(combined.protocolMismatch.napi).toMatch(/reps: 11 \(expected 3\)/);
  });
  it('takes the median of numeric variants over rounds', () => {
    const rounds = [1, 2, 3].map((k) => {
      const raw = round(100, 110, 110);
      raw.c.rows['test.pair'].variants = { direct: k * 10, label: 'x' };
      return raw;
    });
    const combined = combineRounds(
      row,
      rounds.map((raw) => mergeRow(row, raw, 'GPU', { caps })),
    );
    expect(combined.variants.c).toEqual({ direct: 20, label: 'x' });
  });
  it('passes a skipped row through with no verdict', () => {
    const raw = { c: { rows: { 'test.pair': { skipped: 'not applicable: one GPU' } } } };
    const combined = combineRounds(row, [mergeRow(row, raw, 'GPU')]);
    expect(combined).toMatchObject({ skipped: 'not applicable: one GPU', verdict: null, pass: null });
  });
});
