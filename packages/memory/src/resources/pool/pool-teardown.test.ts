import { fileURLToPath } from 'node:url';
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { requireBuiltPackage, runDriverChild } from '../../../test/child-process.js';
import { flushDeferredReleases } from '../../buffer/buffer-release.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { Stream } from '../../stream/stream.js';
import { DeviceMemoryResource } from '../device-memory-resource.js';
import { PinnedMemoryResource } from '../pinned-memory-resource.js';
import type { PoolMemoryResource } from './pool-memory-resource.js';

const childScript = fileURLToPath(new URL('../../../test/fixtures/pool-close-child.mjs', import.meta.url));
const collect = (globalThis as { gc?: () => void }).gc;

/** The calls from the last `memFreeAsync` on, which must sync before `memPoolDestroy`. */
function afterLastFree(calls: readonly string[]): string[] {
  return calls.slice(calls.lastIndexOf('memFreeAsync'));
}

describeEachDriver(adapters, 'pool teardown', (entry) => {
  const kinds: Record<string, () => PoolMemoryResource> = {
    device: () => new DeviceMemoryResource(0, {}),
    pinned: () => new PinnedMemoryResource({}),
  };
  for (const [kind, make] of Object.entries(kinds)) {
    describe(`${kind} pool`, () => {
      let log: { calls: string[]; reset(): void };
      beforeAll(() => {
        const counted = countingDriver(entry.driver);
        log = counted.log;
        useDriver(counted.driver);
      });

      it('close() right after a free synchronizes the freeing device before destroying the pool', () => {
        using stream = Stream.create();
        const mr = make();
        mr.allocate(4096, { stream }).close({ stream });
        log.reset();
        mr.close();
        const calls = afterLastFree(['memFreeAsync', ...log.calls]);
        expect(calls).toContain('contextSynchronize');
        expect(calls.indexOf('contextSynchronize')).toBeLessThan(calls.indexOf('memPoolDestroy'));
        // The sync is owed once: a pool without frees since is destroyed without one.
        const quiet = make();
        log.reset();
        quiet.close();
        expect(log.calls).not.toContain('contextSynchronize');
        expect(log.calls).toContain('memPoolDestroy');
      });

      it('the free that destroys a pool closed earlier is synchronized before the destroy', () => {
        using stream = Stream.create();
        const mr = make();
        const buffer = mr.allocate(4096, { stream });
        mr.close();
        log.reset();
        buffer.close({ stream });
        expect(log.calls[0]).toBe('memFreeAsync');
        expect(log.calls.indexOf('contextSynchronize')).toBeGreaterThan(0);
        expect(log.calls.indexOf('contextSynchronize')).toBeLessThan(log.calls.indexOf('memPoolDestroy'));
      });

      it('a dropped pool is synchronized before its finalizer destroys it', async () => {
        if (!collect) throw new Error('run with --expose-gc (see vitest.config.ts)');
        using stream = Stream.create();
        (() => {
          make().allocate(4096, { stream }).close({ stream });
        })();
        flushDeferredReleases();
        log.reset();
        for (let round = 0; round < 50 && !log.calls.includes('memPoolDestroy'); round++) {
          collect();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        expect(log.calls).toContain('memPoolDestroy');
        expect(log.calls.indexOf('contextSynchronize')).toBeGreaterThanOrEqual(0);
        expect(log.calls.indexOf('contextSynchronize')).toBeLessThan(log.calls.indexOf('memPoolDestroy'));
      });
    });
  }
});

describeEachDriver(
  adapters,
  'pool teardown behind queued work (child process)',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage();
    });

    it('40 pools of each kind closed right after a free behind queued copies, then a sync: no crash', () => {
      const report = runDriverChild(childScript, entry.name) as { rounds: Record<string, string> };
      expect(report.rounds).toMatchObject({ device: 'ok', managed: 'ok', legacyPinned: 'ok' });
      if (entry.driver.capabilities.hostMemoryPools) expect(report.rounds.pinned).toBe('ok');
    });
  },
  { gpuOnly: true },
);
