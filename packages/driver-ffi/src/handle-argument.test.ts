import { describe, expect, it } from 'vitest';
import { handleArgument, sizeArgument } from './handle-argument.js';

describe('handleArgument', () => {
  it('gives the exact number below 2**53', () => {
    for (const value of [0n, 1n, 0xffffffffn, 0x100000000n, 0x7f0012345000n, 2n ** 53n - 1n]) {
      const argument = handleArgument(value);
      expect(typeof argument).toBe('number');
      expect(BigInt(argument)).toBe(value);
    }
  });

  it('keeps the bigint from 2**53 on', () => {
    for (const value of [2n ** 53n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n]) {
      expect(handleArgument(value)).toBe(value);
    }
  });

  it('takes a non-negative safe-integer number as it is (core-types checkAddress)', () => {
    for (const value of [0, 4096, 2 ** 53 - 1]) expect(handleArgument(value as never)).toBe(value);
  });

  it('refuses what checkAddress refuses, also values the 64-bit slot would wrap into range', () => {
    for (const value of [-1n, -(2n ** 40n), 2n ** 64n, 2n ** 64n + 5n, -(2n ** 64n) + 5n, -1, 1.5, 2 ** 53]) {
      expect(() => handleArgument(value as never, 'pool'), String(value)).toThrow(RangeError);
    }
    for (const value of ['pool', '5', null, undefined, {}]) {
      expect(() => handleArgument(value as never, 'pool')).toThrow(
        /^pool must be a bigint or a number address/,
      );
      expect(() => handleArgument(value as never)).toThrow(TypeError);
    }
  });
});

describe('sizeArgument', () => {
  it('passes non-negative safe integers and refuses the rest like checkSize', () => {
    for (const value of [0, 1, 2 ** 53 - 1]) expect(sizeArgument(value)).toBe(value);
    for (const value of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => sizeArgument(value)).toThrow(RangeError);
    for (const value of ['5', 5n, null]) expect(() => sizeArgument(value as never)).toThrow(TypeError);
  });
});
