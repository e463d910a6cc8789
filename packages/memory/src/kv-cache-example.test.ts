// examples/kv-cache-arena, issue 24's example, runs as its header says: the arena grows from one
// step to eight with its address unchanged, and where a second GPU has peer access, that GPU
// reads every new block. The reference driver runs it with 64 MiB steps (two devices); each
// adapter with 1 GiB steps on the machine's GPUs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { packageRoot, requireBuiltPackage } from '../test/child-process.js';

const repositoryRoot = join(packageRoot, '..', '..');
const script = join('examples', 'kv-cache-arena', 'kv-cache-arena.mjs');

describeEachDriver(adapters, 'examples/kv-cache-arena', (entry) => {
  beforeAll(() => {
    requireBuiltPackage();
  });

  it('grows to eight steps at one address; a second GPU with peer access reads every block', () => {
    const args = entry.isReference ? [script, '--small'] : [script];
    const run = spawnSync(process.execPath, args, {
      cwd: repositoryRoot,
      encoding: 'utf8',
      env: { ...process.env, CUMEM_DRIVER: entry.name },
      timeout: 110_000,
    });
    expect({ signal: run.signal, status: run.status }, run.stderr).toEqual({ signal: null, status: 0 });
    const lines = run.stdout.trim().split('\n');
    const grown = lines.filter((line) => line.startsWith('arena: '));
    const step = entry.isReference ? 64 / 1024 : 1;
    expect(grown.map((line) => Number(line.split(' ')[1]))).toEqual(
      Array.from({ length: 8 }, (_, block) => Number(((block + 1) * step).toFixed(2))),
    );
    // One address for every step: the address space was reserved ahead.
    const addresses = new Set(grown.map((line) => line.split(' at ')[1]?.split(' ')[0]));
    expect(addresses.size).toBe(1);
    expect(grown.every((line) => line.endsWith('(same address)'))).toBe(true);
    // The reference driver the example makes has two devices with peer access.
    const driver = entry.driver;
    const reader = entry.isReference || (driver.deviceGetCount() > 1 && driver.deviceCanAccessPeer(1, 0));
    expect(lines.at(-1)).toBe(
      reader ? 'device 1 read every block directly' : 'one GPU (or no peer access): no reader',
    );
  });
});
