// scripts/device/test-chunks.mjs (test:gpu cut into chunks for the device calls) has no vitest
// project of its own; its adding-up is judging code of the device runs, so it is tested here.
import { describe, expect, it } from 'vitest';
import { CHUNKS, chunkOf, mergeReports, testFiles, totalOf } from '../../scripts/device/test-chunks.mjs';

describe('chunkOf', () => {
  it('puts every test file in exactly one chunk, the unnamed ones in rest', () => {
    expect(chunkOf('packages/memory/src/buffer/buffer.test.ts')).toBe('memory');
    expect(chunkOf('packages/compute/src/launch.test.ts')).toBe('upper');
    expect(chunkOf('testing/crash-suite/src/crash-suite.test.ts')).toBe('rest');
    expect(chunkOf('packages/a-new-package/src/x.test.ts')).toBe('rest');
  });
  it("names folders that exist: each named chunk's prefixes still match test files", () => {
    const files = testFiles();
    for (const chunk of CHUNKS.filter((entry) => entry.prefixes.length > 0))
      for (const prefix of chunk.prefixes)
        expect(
          files.some((file) => file.startsWith(prefix)),
          `${chunk.name}: ${prefix}`,
        ).toBe(true);
  });
});

describe('totalOf', () => {
  const call1 =
    'chunk memory: test:gpu: 100 passed, 0 failed, 3 skipped (3 of them by design: not applicable)\nchunks not run: upper rest\n';
  const call2 =
    'chunk upper: test:gpu: 50 passed, 1 failed, 0 skipped\nchunk rest: test:gpu: 7 passed, 0 failed, 2 skipped (1 of them by design)\n';
  it("adds the chunks' lines of several calls and names the chunks no call summarised", () => {
    expect(totalOf([call1])).toMatchObject({
      passed: 100,
      skipped: 3,
      byDesign: 3,
      pending: ['upper', 'rest'],
    });
    expect(totalOf([call1, call2])).toEqual({
      chunks: ['memory', 'upper', 'rest'],
      passed: 157,
      failed: 1,
      skipped: 5,
      byDesign: 4,
      pending: [],
    });
  });
  it('counts a chunk run again in a later call once, by its last line', () => {
    const again = 'chunk memory: test:gpu: 101 passed, 0 failed, 3 skipped (3 of them by design)\n';
    expect(totalOf([call1, again]).passed).toBe(101);
  });
});

describe('mergeReports', () => {
  it("appends a chunk's vitest report: results, counts, and success only when both succeeded", () => {
    const first = mergeReports({}, { success: true, numTotalTests: 2, testResults: [{ name: 'a' }] });
    const both = mergeReports(first, { success: false, numTotalTests: 3, testResults: [{ name: 'b' }] });
    expect(first.success).toBe(true);
    expect(both).toMatchObject({ success: false, numTotalTests: 5 });
    expect(both.testResults.map((file) => file.name)).toEqual(['a', 'b']);
  });
});
