import { expect, it } from 'vitest';
import { CompileError } from '../index.js';

it('CompileError carries the result and log, and refuses wrong-typed parts with a TypeError', () => {
  const error = new CompileError('nvrtcCompileProgram failed', 6, 'line 1: error');
  expect(error.message).toBe('nvrtcCompileProgram failed\nline 1: error');
  expect([error.name, error.result, error.log]).toEqual(['CompileError', 6, 'line 1: error']);
  expect(CompileError.isInstance(error)).toBe(true);
  expect(new CompileError('failed', 6, '').message).toBe('failed');
  // Found by the public-API fuzz: no arguments read `undefined.length`.
  expect(() => Reflect.construct(CompileError, [])).toThrow(
    /CompileError needs a message string, got undefined/,
  );
  expect(() => new CompileError('failed', 6.5, '')).toThrow(/needs an integer result, got number 6\.5/);
  expect(() => new CompileError('failed', 6, null as never)).toThrow(/needs a log string, got null/);
});
