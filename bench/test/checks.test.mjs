import { describe, expect, it } from 'vitest';
import { describeChecks, evaluateChecks } from '../checks.mjs';

const row = (checks, extra = {}) => ({ id: 'r', unit: 'GB/s', checks, ...extra });

describe('evaluateChecks', () => {
  it('compares value / C for ratio kinds and the value itself for max / min', () => {
    const [ratio, absolute] = evaluateChecks(
      row([
        { impl: 'ffi', kind: 'minRatio', value: 0.97 },
        { impl: 'ffi', kind: 'min', value: 54 },
      ]),
      { results: { ffi: 53, c: 54 } },
    );
    expect(ratio).toMatchObject({ applicable: true, ok: true });
    expect(ratio.measured).toBeCloseTo(53 / 54);
    expect(absolute).toMatchObject({ measured: 53, ok: false });
  });
  it('fails a check whose measurement is missing, and leaves out one for another device', () => {
    const [missing, elsewhere] = evaluateChecks(
      row([
        { impl: 'napi', kind: 'minRatio', value: 0.97 },
        { impl: 'ffi', kind: 'min', value: 54, onDevice: 'H200' },
      ]),
      { results: { c: 54 }, deviceName: 'NVIDIA H100' },
    );
    expect(missing).toMatchObject({ ok: false, note: 'missing measurement' });
    expect(elsewhere).toMatchObject({ applicable: false, ok: null });
  });
  it('judges the reference, the base row, the speed-up and the slowest pair', () => {
    const checks = evaluateChecks(
      row(
        [
          { impl: 'ffi', kind: 'minOfReference', value: 0.8 },
          { impl: 'ffi', kind: 'maxOfBaseRow', value: 1.05 },
          { impl: 'ffi', kind: 'minSpeedup', value: 5 },
          { impl: 'ffi', kind: 'minPairRatio', value: 0.97 },
        ],
        { cFrom: 'base' },
      ),
      {
        results: { ffi: 40, c: 50 },
        reference: 45,
        baseRow: { ffi: 39 },
        variants: { ffi: { speedup: 6, '0to1': 96 }, c: { '0to1': 100, singleThreadedProcess: 1 } },
      },
    );
    expect(checks.map((check) => check.ok)).toEqual([true, true, true, false]);
    expect(checks[3].note).toBe('slowest relative pair 0to1');
  });
  it('judges auto against its own faster form, paired by repetition where recorded', () => {
    const [check] = evaluateChecks(
      row([{ impl: 'napi', kind: 'maxOfFasterForm', value: 1.03 }], { unit: 'us' }),
      {
        results: { napi: 105 },
        variants: { napi: { loop: 100, batch: 120, autoOverFasterForm: 1.01 } },
      },
    );
    expect(check).toMatchObject({ measured: 1.01, ok: true });
    expect(check.ofMedians).toBeCloseTo(1.05);
  });
});

describe('describeChecks', () => {
  it('writes each target in the row unit', () => {
    expect(
      describeChecks(
        row([
          { impl: 'ffi', kind: 'minRatio', value: 0.97 },
          { impl: 'napi', kind: 'min', value: 54, onDevice: 'H200' },
        ]),
      ),
    ).toBe('ffi ≥ 97% of C, napi ≥ 54 GB/s (on H200)');
    expect(describeChecks(row([{ impl: 'ffi', kind: 'maxRatio', value: 1.6 }], { unit: 'ns' }))).toBe(
      'ffi ≤ 1.6× C',
    );
  });
});
