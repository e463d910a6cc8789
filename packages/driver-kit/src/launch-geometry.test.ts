import { describe, expect, it } from 'vitest';
import { packLaunchGeometry } from './launch-geometry.js';

describe('packLaunchGeometry', () => {
  it('writes grid, block and shared memory at words 0-6 and the cluster from clusterAt', () => {
    const words = new Uint32Array(20).fill(7);
    const clustered = packLaunchGeometry(
      { grid: [1, 2, 3], block: [4, 5, 6], sharedMemBytes: 100, cluster: [2, 1, 1] },
      words,
      16,
    );
    expect(clustered).toBe(true);
    expect([...words.subarray(0, 7)]).toEqual([1, 2, 3, 4, 5, 6, 100]);
    expect([...words.subarray(16, 19)]).toEqual([2, 1, 1]);
    expect(words[7]).toBe(7);
  });

  it('writes zeros for the cluster of a launch without one', () => {
    const words = new Uint32Array(10).fill(9);
    const clustered = packLaunchGeometry(
      { grid: [8, 1, 1], block: [32, 1, 1], sharedMemBytes: 0, cluster: null },
      words,
      7,
    );
    expect(clustered).toBe(false);
    expect([...words]).toEqual([8, 1, 1, 32, 1, 1, 0, 0, 0, 0]);
  });
});
