import { describe, expect, it } from 'vitest';
import { handleArgument } from './handle-argument.js';

describe('handleArgument', () => {
  it('gives the exact number below 2**53', () => {
    for (const value of [0n, 1n, 0xffffffffn, 0x100000000n, 0x7f0012345000n, 2n ** 53n - 1n]) {
      const argument = handleArgument(value);
      expect(typeof argument).toBe('number');
      expect(BigInt(argument)).toBe(value);
    }
  });

  it('keeps the bigint from 2**53 on, and for negative values', () => {
    for (const value of [2n ** 53n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n, -1n, -(2n ** 40n)]) {
      expect(handleArgument(value)).toBe(value);
    }
  });
});
