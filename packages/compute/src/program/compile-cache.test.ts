import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedCompile, clearCompileCache, compileKey, storeCompile } from './compile-cache.js';

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
});
