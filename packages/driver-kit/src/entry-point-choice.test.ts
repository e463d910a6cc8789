import { describe, expect, it } from 'vitest';
import { chooseEntryPoints } from './entry-point-choice.js';
import { optionalEntryPoints } from './entry-points.js';

const every = [
  ...optionalEntryPoints.map((entry) => entry.symbol),
  'cuMemAdvise',
  'cuMemPrefetchAsync',
  'cuEventElapsedTime',
];
const without = (...symbols: string[]) => every.filter((symbol) => !symbols.includes(symbol));
const choose = (driverVersion: number, mode: 'auto' | 'legacy', exported = every) =>
  [...chooseEntryPoints({ exported, driverVersion, mode })].sort();

describe('chooseEntryPoints', () => {
  it('calls the newest form the driver version has, one per API', () => {
    expect(choose(13000, 'auto')).toEqual(
      [
        'cuEventElapsedTime_v2',
        'cuFuncGetParamInfo',
        'cuMemAdvise_v2',
        'cuMemDiscardAndPrefetchBatchAsync',
        'cuMemDiscardBatchAsync',
        'cuMemGetDefaultMemPool',
        'cuMemGetMemPool',
        'cuMemPrefetchAsync_v2',
        'cuMemPrefetchBatchAsync',
        'cuMemcpyBatchAsync_v2',
      ].sort(),
    );
  });

  it('never calls a form newer than the reported version, even when the library exports it', () => {
    const cuda128 = choose(12080, 'auto');
    expect(cuda128).toContain('cuMemcpyBatchAsync');
    expect(cuda128).not.toContain('cuMemcpyBatchAsync_v2');
    expect(cuda128).not.toContain('cuMemPrefetchBatchAsync');
    expect(cuda128).toContain('cuEventElapsedTime_v2');
    const cuda122 = choose(12020, 'auto');
    expect(cuda122).toContain('cuEventElapsedTime');
    expect(cuda122).not.toContain('cuEventElapsedTime_v2');
    expect(cuda122).not.toContain('cuMemcpyBatchAsync');
    expect(choose(12000, 'auto')).toEqual(['cuEventElapsedTime', 'cuMemAdvise', 'cuMemPrefetchAsync']);
  });

  it('falls back to the older form where the newer one is missing', () => {
    expect(choose(13000, 'auto', without('cuMemcpyBatchAsync_v2'))).toContain('cuMemcpyBatchAsync');
    expect(choose(13000, 'auto', without('cuEventElapsedTime_v2'))).toContain('cuEventElapsedTime');
  });

  it("'legacy' calls the CUDA 12.0 forms, and the newer form only where the driver dropped them", () => {
    expect(choose(13000, 'legacy')).toEqual(['cuEventElapsedTime', 'cuMemAdvise', 'cuMemPrefetchAsync']);
    expect(choose(13000, 'legacy', without('cuEventElapsedTime'))).toEqual([
      'cuEventElapsedTime_v2',
      'cuMemAdvise',
      'cuMemPrefetchAsync',
    ]);
    expect(choose(13000, 'legacy', without('cuMemAdvise', 'cuMemPrefetchAsync'))).toEqual([
      'cuEventElapsedTime',
      'cuMemAdvise_v2',
      'cuMemPrefetchAsync_v2',
    ]);
    // Not a CUDA 12.0 API: no stand-in, whatever the driver has.
    expect(choose(13000, 'legacy', without('cuMemcpyBatchAsync'))).not.toContain('cuMemcpyBatchAsync_v2');
    // A stand-in the driver's version lacks is not called either.
    expect(choose(12020, 'legacy', without('cuEventElapsedTime'))).toEqual([
      'cuMemAdvise',
      'cuMemPrefetchAsync',
    ]);
  });
});
