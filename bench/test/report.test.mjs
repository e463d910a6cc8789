import { describe, expect, it } from 'vitest';
import { formatVerdict, machineKind, renderMarkdown } from '../report.mjs';

const baseRow = {
  id: 'memory.copyHtoD256MiB',
  description: 'copy',
  unit: 'GB/s',
  results: { ffi: 53, napi: 54, cudaCore: 50, c: 54 },
  ratios: { ffiVsC: 53 / 54, napiVsC: 1, cudaCoreVsC: 50 / 54 },
  target: 'ffi ≥ 97% of C',
};

describe('renderMarkdown', () => {
  it('shows the spread over processes and the verdict (schema 2)', () => {
    const row = {
      ...baseRow,
      spreads: { ffiVsC: [0.96, 0.99] },
      checks: [{ impl: 'ffi', kind: 'minRatio', value: 0.97, applicable: true, verdict: 'inconclusive' }],
      verdict: 'inconclusive',
    };
    const text = renderMarkdown({
      device: 'NVIDIA H200',
      commit: 'abcdef0123456',
      date: '2026-12-04T00:00:00Z',
      environment: { verdict: { roundsDone: 5 } },
      rows: [row],
    });
    expect(text).toMatch(/5 processes, interleaved/);
    expect(text).toMatch(/98% of C \[96–99%\] \(53\.0 GB\/s\)/);
    expect(text).toMatch(/\| inconclusive \(ffi\) \|$/m);
  });
  it('still reads a schema 1 file (one process per implementation)', () => {
    const row = { ...baseRow, checks: [{ impl: 'ffi', applicable: true, ok: false }], pass: false };
    expect(formatVerdict(row)).toBe('**no** (ffi)');
    const text = renderMarkdown({ device: 'x', commit: 'c', date: 'd', rows: [row] });
    expect(text).toMatch(/Meets target/);
  });
  it('names missed checks in bold', () => {
    expect(
      formatVerdict({
        checks: [
          { impl: 'napi', verdict: 'missed' },
          { impl: 'ffi', verdict: 'met' },
        ],
        verdict: 'missed',
      }),
    ).toBe('**missed** (napi)');
  });
});

describe('machineKind', () => {
  it('files results by device', () => {
    expect(machineKind({ device: '2x NVIDIA H100 80GB HBM3' })).toBe('2x-nvidia-h100-80gb-hbm3');
  });
});
