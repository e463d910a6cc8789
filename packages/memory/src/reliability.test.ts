import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { collectGarbage } from '../test/garbage.js';
import type { Buffer } from './buffer/buffer.js';
import { flushDeferredReleases } from './buffer/buffer-release.js';
import { DeviceMemoryResource } from './resources/device-memory-resource.js';
import { ManagedMemoryResource } from './resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from './resources/pinned-memory-resource.js';
import { memoryInfo } from './runtime/device-queries.js';
import { useDriver } from './runtime/driver-selection.js';
import { defaultStream, Stream } from './stream/stream.js';

const mebibyte = 1024 * 1024;
const syncDefault = () => defaultStream(0).sync();

describeEachDriver(adapters, 'reliability', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('allocate/close cycles leave free memory where it was (1,000,000 on a GPU, 100,000 on the reference)', () => {
    const cycles = entry.isReference ? 100_000 : 1_000_000;
    const mr = new DeviceMemoryResource(0);
    // The device's current pool keeps freed memory (release threshold at its maximum, as
    // cuda.core sets it), which memoryInfo() counts as used: trim it on both sides of the loop
    // so the comparison sees only memory the cycles failed to return.
    const settle = () => {
      defaultStream(0).sync();
      entry.driver.memPoolTrimTo(mr.handle, 0);
    };
    mr.allocate(4096).close();
    settle();
    const free = memoryInfo(0).free;
    const used = mr.attributes.usedMemCurrent;
    for (let cycle = 0; cycle < cycles; cycle++) mr.allocate(4096).close();
    settle();
    expect(Math.abs(memoryInfo(0).free - free)).toBeLessThanOrEqual(2 * mebibyte);
    expect(mr.attributes.usedMemCurrent).toBe(used);
  });

  it('mixed sizes and streams, interleaved, return every byte to the pool', () => {
    const mr = new DeviceMemoryResource(0, {});
    using stream = Stream.create();
    const sizes = [1, 256, 4096, 65_536, mebibyte, 3 * mebibyte + 5];
    const live: Buffer[] = [];
    for (let cycle = 0; cycle < (entry.isReference ? 1_000 : 5_000); cycle++) {
      const size = sizes[cycle % sizes.length] as number;
      live.push(mr.allocate(size, cycle % 2 === 0 ? { stream } : undefined));
      if (live.length > 16) (live.shift() as Buffer).close(cycle % 3 === 0 ? { stream } : undefined);
    }
    for (const buffer of live) buffer.close();
    stream.sync();
    defaultStream(0).sync();
    expect(mr.attributes.usedMemCurrent).toBe(0);
    mr.close();
  });

  describe('buffers dropped without close', () => {
    it('are released after garbage collection, once each', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.message);
      process.on('warning', onWarning);
      try {
        const mr = new DeviceMemoryResource(0, {});
        (() => {
          for (let index = 0; index < 300; index++) mr.allocate(65_536);
          // Some closed explicitly: their finalizer must be cancelled, not run a second free.
          for (let index = 0; index < 10; index++) mr.allocate(65_536).close();
        })();
        expect(mr.attributes.usedMemCurrent).toBe(300 * 65_536);
        await new Promise((resolve) => setImmediate(resolve));
        await collectGarbage(50, () => mr.attributes.usedMemCurrent === 0, syncDefault);
        expect(mr.attributes.usedMemCurrent).toBe(0);
        expect(warnings.filter((message) => message.includes('cumem'))).toEqual([]);
        mr.close();
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('are released for pinned and managed memory too', async () => {
      await withCountingDriver(useDriver, entry.driver, async (log) => {
        const pinned = new PinnedMemoryResource();
        const managed = new ManagedMemoryResource();
        (() => {
          for (let index = 0; index < 20; index++) {
            pinned.allocate(4096);
            managed.allocate(4096);
          }
        })();
        flushDeferredReleases();
        log.reset();
        const count = (name: string) => log.calls.filter((call) => call === name).length;
        await collectGarbage(50, () => count('memFreeAsync') >= 20 && count('memFree') >= 20, syncDefault);
        expect(count('memFreeAsync')).toBe(20);
        expect(count('memFree')).toBe(20);
        expect(pinned.attributes.usedMemCurrent).toBe(0);
        pinned.close();
      });
    });
  });

  it('double close is harmless and reaches the driver once', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new DeviceMemoryResource(0);
      const buffer = mr.allocate(64);
      log.reset();
      buffer.close();
      buffer.close();
      buffer[Symbol.dispose]();
      expect(log.calls).toEqual(['memFreeAsync']);
      const stream = Stream.create();
      stream.close();
      stream.close();
      const owned = new DeviceMemoryResource(0, {});
      owned.close();
      owned.close();
      expect(log.calls.filter((call) => call === 'streamDestroy')).toHaveLength(1);
      expect(log.calls.filter((call) => call === 'memPoolDestroy')).toHaveLength(1);
    });
  });
});
