import { describe, expect, it } from 'vitest';
import { cappedReps, cappedWarmupMs, expectedProtocol, repetitionCaps } from '../repetitions.mjs';
import { parseStagingDefaults, stagingDefaults } from '../staging-defaults.mjs';

describe('repetition caps', () => {
  it('reads the caps from the environment; none when unset or not positive', () => {
    expect(repetitionCaps({ BENCH_MAX_REPS: '3', BENCH_MAX_WARMUP_MS: '500' })).toEqual({
      reps: 3,
      warmupMs: 500,
    });
    expect(repetitionCaps({ BENCH_MAX_REPS: '0' })).toEqual({
      reps: Number.POSITIVE_INFINITY,
      warmupMs: Number.POSITIVE_INFINITY,
    });
  });
  it('caps a row but never below one repetition, nor above its own count', () => {
    const caps = { reps: 3, warmupMs: 500 };
    expect(cappedReps(11, caps)).toBe(3);
    expect(cappedReps(2, caps)).toBe(2);
    expect(cappedReps(5, { reps: 0, warmupMs: 0 })).toBe(1);
    expect(cappedWarmupMs(2000, caps)).toBe(500);
  });
  it('gives the protocol a capped process reports', () => {
    expect(
      expectedProtocol(
        { iterations: 10, reps: 11, warmupReps: 1, warmupMs: 2000 },
        { reps: 3, warmupMs: 500 },
      ),
    ).toEqual({
      iterations: 10,
      reps: 3,
      warmupReps: 1,
      warmupMs: 500,
    });
    expect(expectedProtocol(undefined, { reps: 3 })).toBeUndefined();
  });
});

describe('staging defaults', () => {
  it('reads chunk size, threads and minimum from the defaults line', () => {
    expect(
      parseStagingDefaults('const defaults = { chunkBytes: 4 * MiB, threads: 8, minBytes: 64 * MiB };'),
    ).toEqual({
      chunkBytes: 4 * 1024 * 1024,
      threads: 8,
      minBytes: 64 * 1024 * 1024,
    });
    expect(() => parseStagingDefaults('nothing here')).toThrow(/no "const defaults/);
  });
  it("finds cumem's own staging-settings.ts in this repository", () => {
    const found = stagingDefaults(new URL('../..', import.meta.url).pathname.replace(/\/$/, ''));
    expect(found.chunkBytes).toBeGreaterThan(0);
    expect(found.threads).toBeGreaterThan(0);
    expect(found.source).toMatch(/staging-settings\.ts$/);
  });
});
