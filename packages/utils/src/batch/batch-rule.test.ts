import { type Driver, type DriverCapabilities, NotSupportedError } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { batchForm, planBatch } from './batch-rule.js';

function fakeDriver(driverVersion: number, batch: boolean): Driver {
  const capabilities = { batchPrefetchDiscard: batch, batchMemcpy: batch } as DriverCapabilities;
  return { driverVersion, capabilities } as Driver;
}

describe('the fixed batch rule', () => {
  const cuda13 = fakeDriver(13000, true);
  const cuda12 = fakeDriver(12040, false);
  const auto = (driver: Driver, operation: Parameters<typeof planBatch>[1]) =>
    planBatch(driver, operation, 'auto', false);

  it('auto: copies, discards and migrations to a device of two ranges or more as one batch call', () => {
    expect(batchForm(auto(cuda13, 'copy'), 'copy', 'any', 2)).toBe('batch');
    expect(batchForm(auto(cuda13, 'copy'), 'copy', 'any', 1024)).toBe('batch');
    expect(batchForm(auto(cuda13, 'prefetch'), 'prefetch', 'toDevice', 1024)).toBe('batch');
    expect(batchForm(auto(cuda13, 'discardPrefetch'), 'discardPrefetch', 'toDevice', 2)).toBe('batch');
    // Discard has no single-range entry point: the batch call even for one range.
    expect(batchForm(auto(cuda13, 'discard'), 'discard', 'any', 1)).toBe('batch');
  });

  it('auto: one range, and migrations to the host, one call per range', () => {
    expect(batchForm(auto(cuda13, 'copy'), 'copy', 'any', 1)).toBe('loop');
    expect(batchForm(auto(cuda13, 'prefetch'), 'prefetch', 'toDevice', 1)).toBe('loop');
    expect(batchForm(auto(cuda13, 'prefetch'), 'prefetch', 'toHost', 1024)).toBe('loop');
    expect(batchForm(auto(cuda13, 'discardPrefetch'), 'discardPrefetch', 'toHost', 1024)).toBe('loop');
  });

  it('auto: the loop wherever the driver has no batch entry point', () => {
    expect(batchForm(auto(cuda12, 'copy'), 'copy', 'any', 1024)).toBe('loop');
    expect(batchForm(auto(cuda12, 'prefetch'), 'prefetch', 'toDevice', 1024)).toBe('loop');
    expect(() => auto(cuda12, 'discard')).toThrow(NotSupportedError);
  });

  it('the same arguments always give the same form (nothing is learned)', () => {
    const plan = auto(cuda13, 'prefetch');
    const forms = Array.from({ length: 50 }, () => batchForm(plan, 'prefetch', 'toDevice', 64));
    expect(new Set(forms)).toEqual(new Set(['batch']));
  });

  it('strategy batch / loop and requireBatch force a form whatever the rule says', () => {
    expect(batchForm(planBatch(cuda13, 'prefetch', 'batch', false), 'prefetch', 'toHost', 1)).toBe('batch');
    expect(batchForm(planBatch(cuda13, 'prefetch', 'auto', true), 'prefetch', 'toHost', 5)).toBe('batch');
    expect(batchForm(planBatch(cuda13, 'copy', 'loop', false), 'copy', 'any', 1024)).toBe('loop');
  });

  it('refuses a required batch entry point the driver lacks, naming the CUDA version', () => {
    expect(() => planBatch(cuda12, 'prefetch', 'auto', true)).toThrow(/CUDA 13\.0/);
    expect(() => planBatch(cuda12, 'copy', 'auto', true)).toThrow(/CUDA 12\.8/);
    expect(() => planBatch(cuda12, 'copy', 'batch', false)).toThrow(NotSupportedError);
    expect(() => planBatch(cuda12, 'discard', 'loop', false)).toThrow(/CUDA 13\.0/);
  });

  it('refuses requireBatch with strategy loop', () => {
    expect(() => planBatch(cuda13, 'prefetch', 'loop', true)).toThrow(/contradicts/);
  });
});
