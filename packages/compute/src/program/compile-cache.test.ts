import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  cachedCompile,
  clearCompileCache,
  compileKey,
  storeCompile,
  unwritableCacheWarning,
} from './compile-cache.js';

describe('compile cache', () => {
  const directory = mkdtempSync(join(tmpdir(), 'cumem-compile-cache-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const entry = {
    target: 'ptx' as const,
    image: Uint8Array.of(1, 2, 3),
    log: 'ok',
    loweredNames: { 'f<int>': '_Z1fIiEvv' },
  };

  it('keys every input apart, also when joined strings would coincide', () => {
    expect(compileKey(['ab', 'c'])).not.toBe(compileKey(['a', 'bc']));
    expect(compileKey(['a', 'b'])).toBe(compileKey(['a', 'b']));
    expect(compileKey(['src', 'ptx', '90'])).not.toBe(compileKey(['src', 'ptx', '89']));
  });

  it('answers from memory, then from the directory once memory is cleared', () => {
    const key = compileKey(['memory and disk']);
    expect(cachedCompile(key, directory)).toBeUndefined();
    storeCompile(key, entry, directory);
    expect(cachedCompile(key, undefined)).toBe(entry);
    clearCompileCache();
    expect(cachedCompile(key, undefined)).toBeUndefined();
    const fromDisk = cachedCompile(key, directory);
    expect(fromDisk).toMatchObject({ target: 'ptx', log: 'ok', loweredNames: entry.loweredNames });
    expect([...(fromDisk?.image ?? [])]).toEqual([1, 2, 3]);
    expect(readdirSync(directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('treats a damaged file as a miss', () => {
    const key = compileKey(['damaged']);
    writeFileSync(join(directory, `${key}.json`), '{ not json');
    expect(cachedCompile(key, directory)).toBeUndefined();
    writeFileSync(
      join(directory, `${key}.json`),
      JSON.stringify({ target: 'elf', image: '', log: '', loweredNames: {} }),
    );
    expect(cachedCompile(key, directory)).toBeUndefined();
  });

  describe('a directory that cannot be written', () => {
    afterEach(() => vi.restoreAllMocks());

    function warningsOf(action: () => void): unknown[][] {
      const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      action();
      return emit.mock.calls;
    }

    it('never fails the store: one warning per directory with its code, the result kept in memory', () => {
      // A path under a file: mkdir answers ENOTDIR.
      const file = join(directory, 'a-file');
      writeFileSync(file, '');
      const underFile = join(file, 'cache');
      const first = compileKey(['under a file, first']);
      const second = compileKey(['under a file, second']);
      const calls = warningsOf(() => {
        storeCompile(first, entry, underFile);
        storeCompile(second, entry, underFile);
      });
      expect(calls).toHaveLength(1);
      const [message, options] = calls[0] as [string, { type: string; code: string }];
      expect(message).toMatch(
        /cannot write the compile cache in .*a-file\/cache \(ENOTDIR\); compiling without it/,
      );
      expect(options).toEqual({ type: 'CumemWarning', code: unwritableCacheWarning });
      expect(cachedCompile(first, underFile)).toBe(entry);
      expect(cachedCompile(second, underFile)).toBe(entry);
      // A miss there reads as a miss, not an error.
      expect(cachedCompile(compileKey(['never stored']), underFile)).toBeUndefined();
    });

    const root = process.getuid?.() === 0;
    it.skipIf(root)(
      root
        ? 'a directory without write permission — skipped: not applicable: root writes anywhere'
        : 'a directory without write permission warns (EACCES) and leaves no file behind',
      () => {
        const locked = join(directory, 'locked');
        mkdirSync(locked, { mode: 0o500 });
        const calls = warningsOf(() => storeCompile(compileKey(['locked']), entry, locked));
        expect(calls).toHaveLength(1);
        expect(calls[0]?.[0]).toMatch(/\(EACCES\)/);
        expect(readdirSync(locked)).toEqual([]);
      },
    );
  });
});
