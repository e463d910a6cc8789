import { describe, expect, it } from 'vitest';
import {
  mergeRawRounds,
  remainingUnits,
  roundsFromUnits,
  rowsFromRounds,
  unitComplete,
  unitsBySuite,
  unitsDone,
} from '../raw-rounds.mjs';

const row = {
  id: 'test.pair',
  suite: 'test',
  unit: 'ns',
  description: 'a pair',
  checks: [{ impl: 'ffi', kind: 'maxRatio', value: 1.6 }],
};
const unit = (c, ffi, extra = {}) => ({
  impls: ['c', 'ffi'],
  c: { rows: { 'test.pair': { value: c } } },
  ffi: { rows: { 'test.pair': { value: ffi } } },
  seconds: 10,
  ...extra,
});
const file = (rawRounds, extra = {}) => ({
  commit: 'abc',
  device: 'NVIDIA H200',
  environment: { repetitions: { maxReps: 3, maxWarmupMs: 500, quick: false } },
  rawRounds,
  ...extra,
});

describe('unitComplete', () => {
  it('needs every process it was to run, baseline ones too, and its seconds', () => {
    expect(unitComplete(unit(1, 1))).toBe(true);
    const { ffi, ...noFfi } = unit(1, 1);
    expect(ffi).toBeDefined();
    expect(unitComplete(noFfi)).toBe(false);
    expect(unitComplete({ ...unit(1, 1), seconds: undefined })).toBe(false);
    expect(unitComplete(unit(1, 1, { baseImpls: ['ffi'], base: {} }))).toBe(false);
    expect(unitComplete(unit(1, 1, { baseImpls: ['ffi'], base: { ffi: { rows: {} } } }))).toBe(true);
  });
  it('refuses a unit the budget cut short, even with an entry for every process', () => {
    expect(unitComplete(unit(1, 1, { incomplete: 'the budget stopped ffi' }))).toBe(false);
  });
});

describe('mergeRawRounds', () => {
  it("appends each suite's units in file order, whatever round they sat in", () => {
    const first = file([{ test: unit(100, 110), other: unit(1, 1) }, { test: unit(100, 120) }]);
    const second = file([{ test: unit(100, 130), other: unit(2, 2) }]);
    const { rawRounds, dropped } = mergeRawRounds([first, second]);
    expect(dropped).toBe(0);
    expect(unitsDone(rawRounds)).toEqual({ test: 3, other: 2 });
    expect(rawRounds.map((round) => round.test.ffi.rows['test.pair'].value)).toEqual([110, 120, 130]);
    expect(rawRounds[1].other.c.rows['test.pair'].value).toBe(2);
  });
  it('counts a unit once when a file and the file that resumed it are both given', () => {
    const first = file([{ test: unit(100, 110, { id: 'call1/test#1' }) }]);
    const resumed = file([
      { test: unit(100, 110, { id: 'call1/test#1' }) },
      { test: unit(100, 120, { id: 'call2/test#2' }) },
    ]);
    const { rawRounds } = mergeRawRounds([first, resumed]);
    expect(rawRounds.map((round) => round.test.id)).toEqual(['call1/test#1', 'call2/test#2']);
  });
  it('leaves incomplete units out and counts them', () => {
    const { rawRounds, dropped } = mergeRawRounds([
      file([{ test: unit(100, 110) }, { test: unit(100, 999, { incomplete: 'cut' }) }]),
    ]);
    expect(dropped).toBe(1);
    expect(unitsDone(rawRounds)).toEqual({ test: 1 });
  });
  it('refuses files of another commit, device, caps or baseline, and files without raw rounds', () => {
    const good = file([{ test: unit(1, 1) }]);
    expect(() => mergeRawRounds([good, file([], { commit: 'def' })])).toThrow(/commit "def"/);
    expect(() => mergeRawRounds([good, file([], { device: 'NVIDIA H100' })])).toThrow(/device/);
    const moreReps = file([], { environment: { repetitions: { maxReps: 11, maxWarmupMs: 500 } } });
    expect(() => mergeRawRounds([good, moreReps])).toThrow(/maxReps 11/);
    expect(() => mergeRawRounds([good, file([], { comparison: { base: 'a97c4a0' } })])).toThrow(/baseCommit/);
    const { rawRounds, ...old } = good;
    expect(rawRounds).toBeDefined();
    expect(() => mergeRawRounds([old])).toThrow(/has no rawRounds/);
    expect(() => mergeRawRounds([])).toThrow(/no results/);
  });
});

describe('remainingUnits', () => {
  it('runs only the missing units, round-major so suites stay interleaved', () => {
    const order = remainingUnits(['a', 'b', 'curves'], (suite) => (suite === 'curves' ? 1 : 3), {
      a: 2,
      curves: 1,
    });
    expect(order).toEqual([
      { suite: 'a', round: 2 },
      { suite: 'b', round: 0 },
      { suite: 'b', round: 1 },
      { suite: 'b', round: 2 },
    ]);
  });
  it('is empty when every suite has its units', () => {
    expect(remainingUnits(['a'], () => 5, { a: 5 })).toEqual([]);
    expect(remainingUnits(['a'], () => 5, { a: 7 })).toEqual([]);
  });
  it('starts from nothing without earlier units', () => {
    expect(remainingUnits(['a', 'b'], () => 2)).toEqual([
      { suite: 'a', round: 0 },
      { suite: 'b', round: 0 },
      { suite: 'a', round: 1 },
      { suite: 'b', round: 1 },
    ]);
  });
});

describe('rowsFromRounds', () => {
  it('judges a bench split over two calls exactly as the same units in one call', () => {
    const all = [100, 200, 100, 210, 100].map((c, k) => unit(c, c * (1.2 + k / 100)));
    const oneCall = roundsFromUnits({ test: all });
    const { rawRounds: twoCalls } = mergeRawRounds([
      file(roundsFromUnits({ test: all.slice(0, 3) })),
      file(roundsFromUnits({ test: all.slice(3) })),
    ]);
    const options = { suites: ['test'], deviceName: 'GPU', caps: { reps: 3, warmupMs: 500 } };
    const [whole] = rowsFromRounds([row], oneCall, options);
    const [split] = rowsFromRounds([row], twoCalls, options);
    expect(split).toEqual(whole);
    expect(whole.verdict).toBe('met');
    expect(whole.processes.ffi).toHaveLength(5);
  });
  it('reads inconclusive while a resumed bench still lacks processes, and leaves out suites not asked', () => {
    const rawRounds = roundsFromUnits({ test: [unit(100, 110), unit(100, 111)] });
    const [judged] = rowsFromRounds([row], rawRounds, { suites: ['test'], deviceName: 'GPU' });
    expect(judged.verdict).toBe('inconclusive');
    expect(judged.checks[0].note).toMatch(/2 of the 5 processes/);
    expect(rowsFromRounds([row], rawRounds, { suites: ['other'], deviceName: 'GPU' })).toEqual([]);
  });
  it('takes the minimum processes per suite (the curves run once)', () => {
    const rawRounds = roundsFromUnits({ test: [unit(100, 110)] });
    const [judged] = rowsFromRounds([row], rawRounds, {
      suites: ['test'],
      deviceName: 'GPU',
      minProcesses: () => 1,
    });
    expect(judged.verdict).toBe('met');
  });
});

describe('unitsBySuite', () => {
  it('ignores empty rounds and keeps the order units ran in', () => {
    const units = unitsBySuite([{ test: unit(1, 2) }, undefined, {}, { test: unit(3, 4) }]);
    expect(units.test.map((entry) => entry.c.rows['test.pair'].value)).toEqual([1, 3]);
  });
});
