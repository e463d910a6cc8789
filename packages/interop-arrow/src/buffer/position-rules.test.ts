import { describe, expect, it } from 'vitest';
import {
  checkByteCount,
  checkPosition,
  resolveCopyInto,
  resolveCopyToGivenHost,
  resolveCopyToNewHost,
  resolveDataRange,
  resolveSeek,
  resolveSlice,
} from './position-rules.js';

// The cases of pyarrow's test_cuda.py (test_copy_to_host, test_copy_from_host,
// test_copy_from_device, test_context_device_buffer), for sizes 0, 1 and 1000.
const sizes = [0, 1, 1000];

describe('checkPosition / checkByteCount', () => {
  it('refuses the wrong kind of value with TypeError, bad numbers with RangeError', () => {
    expect(() => checkPosition('4', 10)).toThrow(TypeError);
    expect(() => checkPosition(true, 10)).toThrow(TypeError);
    expect(() => checkPosition(1.5, 10)).toThrow(RangeError);
    expect(() => checkPosition(Number.NaN, 10)).toThrow(RangeError);
    expect(() => checkPosition(-1, 10)).toThrow(/position out of range/);
    expect(() => checkPosition(11, 10)).toThrow(/position out of range/);
    expect(checkPosition(10, 10)).toBe(10);
    expect(checkByteCount(-1)).toBe(-1);
    expect(() => checkByteCount(-2)).toThrow(RangeError);
    expect(() => checkByteCount(2 ** 53)).toThrow(RangeError);
    expect(() => checkByteCount(4n)).toThrow(TypeError);
  });
});

describe.each(sizes)('copyToHost rules, size %i', (size) => {
  it('copies all, from a position, or a count', () => {
    expect(resolveCopyToNewHost(size, 0, -1)).toEqual({ position: 0, nbytes: size });
    const q = Math.floor(size / 4);
    expect(resolveCopyToNewHost(size, q, -1)).toEqual({ position: q, nbytes: size - q });
    expect(resolveCopyToNewHost(size, q, Math.floor(size / 8))).toEqual({
      position: q,
      nbytes: Math.floor(size / 8),
    });
    expect(resolveCopyToNewHost(size, q, 0)).toEqual({ position: q, nbytes: 0 });
  });

  it('refuses positions out of range', () => {
    for (const [position, nbytes] of [
      [size + 2, -1],
      [-2, -1],
      [size + 1, 0],
      [-3, 0],
    ]) {
      expect(() => resolveCopyToNewHost(size, position, nbytes)).toThrow(/position out of range/);
    }
  });

  it('refuses asking for more than the device buffer has', () => {
    const half = Math.floor(size / 2);
    for (const [position, nbytes] of [
      [0, size + 1],
      [half, Math.floor((size + 1) / 2) + 1],
      [size, 1],
    ]) {
      expect(() => resolveCopyToNewHost(size, position, nbytes)).toThrow(
        /more to copy than available from device buffer/,
      );
    }
  });

  it('with a given host buffer: fills it, or refuses what does not fit', () => {
    const hostSize = Math.floor(size / 4);
    expect(resolveCopyToGivenHost(size, hostSize, 0, -1)).toEqual({ position: 0, nbytes: hostSize });
    if (size < 12) return;
    expect(resolveCopyToGivenHost(size, hostSize, 12, -1)).toEqual({ position: 12, nbytes: hostSize });
    expect(resolveCopyToGivenHost(size, hostSize, 6, 12)).toEqual({ position: 6, nbytes: 12 });
    for (const [position, nbytes] of [
      [0, size + 10],
      [10, size - 5],
      [0, Math.floor(size / 2)],
      [Math.floor(size / 4), Math.floor(size / 4) + 1],
    ]) {
      expect(() => resolveCopyToGivenHost(size, hostSize, position, nbytes)).toThrow(
        /does not fit into host buffer/,
      );
    }
  });
});

describe.each(sizes)('copyFromHost / copyFromDevice rules, size %i', (size) => {
  for (const source of ['host buffer', 'device buffer'] as const) {
    it(`${source}: default copies until full, and names the short side`, () => {
      expect(resolveCopyInto(size, size, 0, -1, source)).toEqual({ position: 0, nbytes: size });
      const q = Math.floor(size / 4);
      expect(resolveCopyInto(size, size, q, -1, source)).toEqual({ position: q, nbytes: size - q });
      for (const [position, nbytes] of [
        [size + 2, -1],
        [-2, -1],
        [size + 1, 0],
        [-3, 0],
      ]) {
        expect(() => resolveCopyInto(size, size, position, nbytes, source)).toThrow(/position out of range/);
      }
      expect(() => resolveCopyInto(size, size, 0, size + 1, source)).toThrow(
        new RegExp(`more to copy than available from ${source}`),
      );
      if (size >= 4) {
        const half = Math.floor(size / 2);
        expect(() => resolveCopyInto(size, size, half, Math.floor((size + 1) / 2) + 1, source)).toThrow(
          /more to copy than available in device buffer/,
        );
      }
    });
  }
});

describe('slice rules', () => {
  it('clamps the length to what is available (pyarrow)', () => {
    expect(resolveSlice(1000, 0, 1010)).toEqual({ offset: 0, length: 1000 });
    expect(resolveSlice(1000, 250, 1010)).toEqual({ offset: 250, length: 750 });
    expect(resolveSlice(1000, 250, undefined)).toEqual({ offset: 250, length: 750 });
    expect(resolveSlice(0, 0, 10)).toEqual({ offset: 0, length: 0 });
  });

  it('refuses an offset at or past the end of a non-empty buffer', () => {
    expect(() => resolveSlice(10, 10, 1)).toThrow(RangeError);
    expect(() => resolveSlice(10, -1, 1)).toThrow(RangeError);
    expect(() => resolveSlice(10, 0, -1)).toThrow(RangeError);
    expect(() => resolveSlice(10, '1', 1)).toThrow(TypeError);
  });
});

describe('bufferFromData range', () => {
  it('follows pyarrow: offset in range, size -1 = to the end, larger slice refused', () => {
    expect(resolveDataRange(1000, 250, 500)).toEqual({ offset: 250, size: 500 });
    expect(resolveDataRange(1000, 250, -1)).toEqual({ offset: 250, size: 750 });
    expect(resolveDataRange(0, 0, -1)).toEqual({ offset: 0, size: 0 });
    expect(() => resolveDataRange(1000, 1000, -1)).toThrow(/offset out of range/);
    expect(() => resolveDataRange(1000, 500, 501)).toThrow(/larger slice than available/);
  });
});

describe('seek rules', () => {
  it('supports start, current and end, and refuses leaving [0, size]', () => {
    expect(resolveSeek(950, 0, 0, 1000)).toBe(950);
    expect(resolveSeek(-50, 1, 950, 1000)).toBe(900);
    expect(resolveSeek(-75, 2, 0, 1000)).toBe(925);
    expect(resolveSeek(0, 2, 0, 1000)).toBe(1000);
    expect(() => resolveSeek(1001, 0, 0, 1000)).toThrow(/position out of range/);
    expect(() => resolveSeek(-1, 0, 0, 1000)).toThrow(/position out of range/);
    expect(() => resolveSeek(0, 3, 0, 1000)).toThrow(RangeError);
    expect(() => resolveSeek(0, '0', 0, 1000)).toThrow(TypeError);
    expect(() => resolveSeek(0.5, 0, 0, 1000)).toThrow(RangeError);
  });
});

describe('messages about hostile values', () => {
  // A fuzz find: an object whose toString is not callable made String() throw an untyped error.
  it('describes values that cannot be turned into a string', () => {
    const hostile = { toString: '' };
    expect(() => resolveSeek(0, hostile, 0, 10)).toThrow(TypeError);
    expect(() => resolveSeek(0, Object.create(null), 0, 10)).toThrow(
      /whence must be 0, 1 or 2, got an object/,
    );
    expect(() => resolveSeek(0, Symbol('s'), 0, 10)).toThrow(TypeError);
  });
});
