import { describe, expect, it } from 'vitest';
import { isCacheableCompile } from './cache-eligibility.js';

const kernel = 'extern "C" __global__ void k() {}';

describe('isCacheableCompile', () => {
  it('caches a compile that reads nothing but its source (built-in headers included)', () => {
    expect(isCacheableCompile(kernel, [])).toBe(true);
    expect(isCacheableCompile(`#include <cuda_fp16.h>\n${kernel}`, ['-std=c++17', '--use_fast_math'])).toBe(
      true,
    );
  });

  it('does not cache a quoted #include (a header file the key cannot see)', () => {
    expect(isCacheableCompile(`#include "value.h"\n${kernel}`, [])).toBe(false);
    expect(isCacheableCompile(`  #  include   "value.h"\n${kernel}`, [])).toBe(false);
  });

  it('does not cache options that read headers or write files, in either form', () => {
    for (const options of [
      ['--include-path=/h'],
      ['--include-path', '/h'],
      ['-I/h'],
      ['-I', '/h'],
      ['--pre-include=/h/a.h'],
      ['-include', '/h/a.h'],
      ['--create-pch=/tmp/x.pch'],
      ['--use-pch=/tmp/x.pch'],
      ['--pch'],
      ['-pch-dir=/tmp'],
      ['--fdevice-time-trace=/tmp/t.json'],
      ['--time=/tmp/t.csv'],
    ]) {
      expect(isCacheableCompile(kernel, options), options.join(' ')).toBe(false);
    }
  });

  it('leaves options that merely begin alike alone', () => {
    expect(isCacheableCompile(kernel, ['--timeout-like-option'])).toBe(true);
    expect(isCacheableCompile(kernel, ['--pch-messages'])).toBe(true);
  });
});
