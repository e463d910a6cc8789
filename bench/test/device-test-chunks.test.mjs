// scripts/device/test-chunks.mjs (test:gpu cut into chunks for the device calls) belongs to the
// root's scripts, which have no vitest project; its adding-up judges the device runs, so it is
// tested here, through its command line, as run.sh calls it (a package does not import another's files).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/device/test-chunks.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'cumem-test-chunks-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function chunks(...args) {
  return execFileSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });
}

function written(name, text) {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('the chunks', () => {
  const names = chunks('names').trim().split(' ');
  const filesOf = new Map(names.map((name) => [name, chunks('files', name).split('\n').filter(Boolean)]));

  it('put every test file in exactly one chunk, each named chunk holding the files it is named for', () => {
    expect(names.at(-1)).toBe('rest');
    const all = [...filesOf.values()].flat();
    expect(new Set(all).size).toBe(all.length);
    expect(filesOf.get('memory')).toContain('packages/memory/src/buffer/buffer.test.ts');
    expect(filesOf.get('upper')?.some((file) => file.startsWith('packages/compute/'))).toBe(true);
    expect(filesOf.get('rest')?.some((file) => file.startsWith('testing/crash-suite/'))).toBe(true);
    for (const [name, files] of filesOf) expect(files.length, name).toBeGreaterThan(0);
  });

  it('each has a first guess of its seconds', () => {
    for (const name of names) expect(Number(chunks('seconds', name))).toBeGreaterThan(0);
  });
});

describe('total', () => {
  const call1 = written(
    'call1.txt',
    'chunk memory: test:gpu: 100 passed, 0 failed, 3 skipped (3 of them by design: not applicable)\nchunks not run: upper rest\n',
  );
  const call2 = written(
    'call2.txt',
    'chunk upper: test:gpu: 50 passed, 1 failed, 0 skipped\nchunk rest: test:gpu: 7 passed, 0 failed, 2 skipped (1 of them by design)\n',
  );

  it("adds the chunks' lines of several calls and names the chunks no call summarised", () => {
    expect(chunks('total', call1)).toBe(
      'test:gpu over chunks memory: 100 passed, 0 failed, 3 skipped (3 of them by design, 0 not); chunks not run: upper rest\n',
    );
    expect(chunks('total', call1, call2)).toBe(
      'test:gpu over chunks memory, upper, rest: 157 passed, 1 failed, 5 skipped (4 of them by design, 1 not); every chunk ran\n',
    );
  });

  it('counts a chunk run again in a later call once, by its last line', () => {
    const again = written(
      'again.txt',
      'chunk memory: test:gpu: 101 passed, 0 failed, 3 skipped (3 of them by design)\n',
    );
    expect(chunks('total', call1, again)).toMatch(/: 101 passed, /);
  });
});

describe('merge-report', () => {
  it("appends a chunk's vitest report: results, counts, and success only when both succeeded", () => {
    const target = join(scratch, 'report.json');
    chunks(
      'merge-report',
      target,
      written('a.json', JSON.stringify({ success: true, numTotalTests: 2, testResults: [{ name: 'a' }] })),
    );
    expect(JSON.parse(readFileSync(target, 'utf8')).success).toBe(true);
    chunks(
      'merge-report',
      target,
      written('b.json', JSON.stringify({ success: false, numTotalTests: 3, testResults: [{ name: 'b' }] })),
    );
    const both = JSON.parse(readFileSync(target, 'utf8'));
    expect(both).toMatchObject({ success: false, numTotalTests: 5 });
    expect(both.testResults.map((file) => file.name)).toEqual(['a', 'b']);
  });
});
