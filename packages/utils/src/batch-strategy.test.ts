import { type Driver, type DriverCapabilities, NotSupportedError } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { BATCH_STRATEGY_TABLE, chooseBatchStrategy } from './batch-strategy.js';

function fakeDriver(driverVersion: number, batch: boolean): Driver {
  const capabilities = { batchPrefetchDiscard: batch, batchMemcpy: batch } as DriverCapabilities;
  return { driverVersion, capabilities } as Driver;
}

describe('chooseBatchStrategy', () => {
  const cuda13 = fakeDriver(13000, true);
  const cuda12 = fakeDriver(12040, false);

  it('auto on CUDA 13.0 falls back to the H200 measurements: split by direction for prefetches, batch for discard and copy', () => {
    expect(chooseBatchStrategy(cuda13, 'prefetch', 'auto', false).kind).toBe('split');
    expect(chooseBatchStrategy(cuda13, 'discardPrefetch', 'auto', false).kind).toBe('split');
    expect(chooseBatchStrategy(cuda13, 'discard', 'auto', false).kind).toBe('batch');
    expect(chooseBatchStrategy(cuda13, 'copy', 'auto', false)).toEqual({
      kind: 'batch',
      chunkSize: Number.POSITIVE_INFINITY,
      measured: true,
    });
  });

  it('auto is measured where both forms exist; forced strategies and drivers without the batch call are not', () => {
    for (const operation of ['prefetch', 'discard', 'discardPrefetch', 'copy'] as const) {
      expect(chooseBatchStrategy(cuda13, operation, 'auto', false).measured).toBe(true);
      expect(chooseBatchStrategy(cuda13, operation, 'loop', false).measured).toBe(false);
      expect(chooseBatchStrategy(cuda13, operation, 'batch', false).measured).toBe(false);
      expect(chooseBatchStrategy(cuda13, operation, 'auto', true).measured).toBe(false);
    }
    expect(chooseBatchStrategy(cuda12, 'prefetch', 'auto', false).measured).toBe(false);
    expect(chooseBatchStrategy(fakeDriver(12080, true), 'copy', 'auto', false).measured).toBe(true);
  });

  it('auto copy on CUDA 12.8 / 12.9 (unmeasured) is the loop, with the batch entry point present', () => {
    expect(chooseBatchStrategy(fakeDriver(12080, true), 'copy', 'auto', false).kind).toBe('loop');
    expect(chooseBatchStrategy(fakeDriver(12090, true), 'copy', 'auto', false).kind).toBe('loop');
  });

  it('auto discard uses the batch entry point, the only one there is', () => {
    expect(chooseBatchStrategy(cuda13, 'discard', 'auto', false).kind).toBe('batch');
  });

  it('explicit strategies and requireBatch win over the table', () => {
    expect(chooseBatchStrategy(cuda13, 'prefetch', 'batch', false).kind).toBe('batch');
    expect(chooseBatchStrategy(cuda13, 'prefetch', 'auto', true).kind).toBe('batch');
    expect(chooseBatchStrategy(cuda13, 'copy', 'loop', false).kind).toBe('loop');
  });

  it('falls back to the loop without batch entry points, unless the batch is required', () => {
    expect(chooseBatchStrategy(cuda12, 'prefetch', 'auto', false).kind).toBe('loop');
    expect(chooseBatchStrategy(cuda12, 'copy', 'auto', false).kind).toBe('loop');
    expect(() => chooseBatchStrategy(cuda12, 'prefetch', 'auto', true)).toThrow(/CUDA 13\.0/);
    expect(() => chooseBatchStrategy(cuda12, 'copy', 'auto', true)).toThrow(/CUDA 12\.8/);
    expect(() => chooseBatchStrategy(cuda12, 'copy', 'batch', false)).toThrow(NotSupportedError);
    expect(() => chooseBatchStrategy(cuda12, 'discard', 'auto', false)).toThrow(NotSupportedError);
    expect(() => chooseBatchStrategy(cuda12, 'discard', 'loop', false)).toThrow(/CUDA 13\.0/);
  });

  it('refuses requireBatch with strategy loop', () => {
    expect(() => chooseBatchStrategy(cuda13, 'prefetch', 'loop', true)).toThrow(TypeError);
  });

  it('follows a table row where it says batch, with its chunk size', () => {
    const table = [{ ...BATCH_STRATEGY_TABLE[0]!, kind: 'batch' as const, chunkSize: 128 }];
    expect(chooseBatchStrategy(cuda13, 'prefetch', 'auto', false, table)).toEqual({
      kind: 'batch',
      chunkSize: 128,
      measured: true,
    });
    expect(chooseBatchStrategy(fakeDriver(13000, false), 'prefetch', 'auto', false, table).kind).toBe('loop');
  });
});
