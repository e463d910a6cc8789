// Statistics, limits and allocation tracking of the built-in resources, on every driver.
import { CudaError, NotSupportedError } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { collectGarbage } from '../../test/garbage.js';
import type { Buffer } from '../buffer/buffer.js';
import { flushDeferredReleases } from '../buffer/buffer-release.js';
import { MemoryResource } from '../buffer/memory-resource.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream } from '../stream/stream.js';
import { trackAllocations } from './allocation-tracker.js';
import { memoryReport } from './memory-report.js';
import { onOutOfMemory } from './out-of-memory.js';
import { finalizerReleases } from './resource-pressure.js';

/** Allocates and drops a buffer in a frame of its own, so nothing on the test's stack holds it. */
function allocateAndDrop(mr: MemoryResource, size: number): void {
  mr.allocate(size);
}

describeEachDriver(adapters, 'memory pressure', (entry) => {
  beforeAll(() => useDriver(entry.driver));
  const unhooks: (() => void)[] = [];
  afterEach(() => {
    for (const unhook of unhooks.splice(0)) unhook();
  });

  const kinds: Record<string, () => MemoryResource> = {
    device: () => new DeviceMemoryResource(0, {}),
    pinned: () => new PinnedMemoryResource(),
    managed: () => new ManagedMemoryResource(),
    'legacy pinned': () => new LegacyPinnedMemoryResource(),
  };
  for (const [kind, make] of Object.entries(kinds)) {
    describe(`${kind} resource`, () => {
      it('statistics count bytes and allocations now, at the peak and in total, from when they began', () => {
        using mr = make();
        const before = mr.allocate(100);
        expect(mr.statistics().enabled).toBe(false);
        expect(mr.statistics().bytes).toEqual({ current: 0, peak: 0, total: 0 });
        expect(mr.enableStatistics()).toBe(mr);
        const a = mr.allocate(1000);
        const b = mr.allocate(3000);
        a.close();
        before.close(); // allocated before statistics began: not counted
        let stats = mr.statistics();
        expect(stats.enabled).toBe(true);
        expect(stats.bytes).toEqual({ current: 3000, peak: 4000, total: 4000 });
        expect(stats.allocations).toEqual({ current: 1, peak: 2, total: 2 });
        mr.resetPeakStatistics();
        stats = mr.statistics();
        expect(stats.bytes.peak).toBe(3000);
        expect(stats.allocations.peak).toBe(1);
        b.close();
        b.close();
        stats = mr.statistics();
        expect(stats.bytes).toEqual({ current: 0, peak: 3000, total: 4000 });
        expect(stats.allocations).toEqual({ current: 0, peak: 1, total: 2 });
        expect(stats.failures).toBe(0);
      });

      it('a limit refuses what would pass it with the driver out-of-memory CudaError, and counts the failure', () => {
        using mr = make();
        expect(mr.limit).toBeNull();
        mr.limit = 8192;
        expect(mr.limit).toBe(8192);
        const a = mr.allocate(4096);
        const b = mr.allocate(4096);
        let thrown: unknown;
        try {
          mr.allocate(1);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(CudaError);
        expect((thrown as CudaError).codeName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
        expect((thrown as CudaError).code).toBe(2);
        expect((thrown as CudaError).message).toMatch(/limit of 8192 bytes/);
        expect(mr.statistics().failures).toBe(1);
        a.close();
        mr.allocate(4096).close();
        mr.limit = null;
        const big = mr.allocate(1 << 20);
        expect(mr.statistics().bytes.current).toBe(4096 + (1 << 20));
        big.close();
        b.close();
        expect(() => {
          mr.limit = -1;
        }).toThrow(RangeError);
        expect(() => {
          mr.limit = '4' as unknown as number;
        }).toThrow(TypeError);
      });

      it('a limit recovers memory of buffers dropped without close() instead of failing', () => {
        using mr = make();
        mr.limit = 4 * 65536;
        // 12 times the limit, in one synchronous loop: only recovery can free the dropped ones.
        for (let i = 0; i < 48; i++) allocateAndDrop(mr, 65536);
        expect(mr.statistics().bytes.current).toBeLessThanOrEqual(4 * 65536);
        expect(mr.statistics().failures).toBe(0);
      });

      it('a tracker lists outstanding allocations with their stacks, and the dropped ones the finalizer freed', async () => {
        using mr = make();
        using tracker = trackAllocations({ resource: mr, stacks: true });
        const kept = mr.allocate(512);
        const closed = mr.allocate(256);
        closed.close();
        const outstanding = tracker.outstanding();
        expect(outstanding.map((allocation) => allocation.size)).toEqual([512]);
        expect(outstanding[0]?.pointer).toBe(kept.handle);
        expect(outstanding[0]?.resource).toBe(mr);
        expect(outstanding[0]?.deviceId).toBe(mr.deviceId);
        expect(outstanding[0]?.stack).toMatch(/memory-pressure\.test\.ts/);
        const releasedBefore = finalizerReleases().count;
        allocateAndDrop(mr, 1024);
        flushDeferredReleases();
        await collectGarbage(50, () => tracker.releasedByFinalizer().length > 0);
        const dropped = tracker.releasedByFinalizer();
        expect(dropped.map((allocation) => allocation.size)).toEqual([1024]);
        expect(dropped[0]?.stack).toMatch(/allocateAndDrop/);
        expect(tracker.releasedByFinalizerCount).toBe(1);
        expect(finalizerReleases().count).toBeGreaterThan(releasedBefore);
        expect(tracker.outstanding().map((allocation) => allocation.size)).toEqual([512]);
        tracker.close();
        mr.allocate(64).close();
        expect(tracker.outstanding()).toHaveLength(1);
        kept.close();
      });
    });
  }

  it('a tracker of every resource sees resources made after it, without stacks unless asked', () => {
    const tracker = trackAllocations();
    using mr = new DeviceMemoryResource(0, {});
    const buffer = mr.allocate(4096);
    const seen = tracker.outstanding().filter((allocation) => allocation.resource === mr);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.stack).toBeNull();
    buffer.close();
    expect(tracker.outstanding().filter((allocation) => allocation.resource === mr)).toHaveLength(0);
    tracker.close();
    mr.allocate(4096).close();
    expect(tracker.outstanding()).toHaveLength(0);
  });

  it('out-of-memory hooks run after cumem released what it could, may free a cache, and are asked a bounded number of times', () => {
    using mr = new DeviceMemoryResource(0, {});
    mr.limit = 8192;
    const cache: Buffer[] = [mr.allocate(4096), mr.allocate(4096)];
    const attempts: number[] = [];
    unhooks.push(
      onOutOfMemory(
        (info) => {
          expect(info.resource).toBe(mr);
          expect(info.size).toBe(4096);
          expect(info.error.codeName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
          attempts.push(info.attempt);
          cache.pop()?.close();
          return true;
        },
        { resource: mr },
      ),
    );
    const buffer = mr.allocate(4096);
    expect(attempts).toEqual([1]);
    // A device hook that always asks to retry without freeing: asked 3 times, then the error.
    const deviceAttempts: number[] = [];
    unhooks.push(
      onOutOfMemory(
        (info) => {
          deviceAttempts.push(info.attempt);
          return true;
        },
        { device: 0 },
      ),
    );
    attempts.length = 0;
    cache.length = 0; // drops the last cached buffer without close(): recovery frees it, no hook needed
    const held = mr.allocate(4096);
    expect(attempts).toEqual([]);
    expect(() => mr.allocate(4096)).toThrow(/CUDA_ERROR_OUT_OF_MEMORY/);
    expect(attempts).toEqual([1, 2, 3]);
    expect(deviceAttempts).toEqual([]); // the resource hook asked first, every time
    buffer.close();
    held.close();
    expect(() => onOutOfMemory(42 as never)).toThrow(TypeError);
    expect(() => onOutOfMemory(() => true, { device: 0, resource: mr })).toThrow(TypeError);
  });

  it('statistics and limits refuse resources not built into cumem', () => {
    class Custom extends MemoryResource {
      allocate(): Buffer {
        throw new Error('unused');
      }
      deallocate(): void {}
      get isDeviceAccessible(): boolean {
        return true;
      }
      get isHostAccessible(): boolean {
        return false;
      }
      get deviceId(): number {
        return 0;
      }
    }
    const custom = new Custom();
    expect(custom.statistics().enabled).toBe(false);
    expect(() => custom.enableStatistics()).toThrow(NotSupportedError);
    expect(() => {
      custom.limit = 1;
    }).toThrow(NotSupportedError);
    expect(() => trackAllocations({ resource: {} as MemoryResource })).toThrow(TypeError);
  });

  it('memoryReport lists the resources that count, with their statistics and limit', () => {
    using mr = new DeviceMemoryResource(0, {});
    mr.limit = 1 << 20;
    const buffer = mr.allocate(4096);
    const report = memoryReport();
    const mine = report.resources.find((resource) => resource.resource === mr);
    expect(mine?.kind).toBe('DeviceMemoryResource');
    expect(mine?.limit).toBe(1 << 20);
    expect(mine?.statistics.bytes.current).toBe(4096);
    expect(report.outOfMemory.events).toBeGreaterThanOrEqual(0);
    buffer.close();
    defaultStream(0).sync();
    mr.close();
    expect(memoryReport().resources.some((resource) => resource.resource === mr)).toBe(false);
  });
});
