// Out-of-memory recovery: a loop that allocates and drops (never closes) buffers totalling 3x
// the memory finishes, because cumem forces a collection, frees the dropped buffers at once
// and trims the pools before the allocation would fail. On a GPU: 1 GiB device buffers, 3x
// cuDeviceTotalMem. On the reference driver: a 64 MiB device, 8 MiB buffers (the driver's own
// out-of-memory error, not a limit). Never managed memory here: over-subscribing it can hang a card.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { requireBuiltPackage } from '../../test/child-process.js';
import type { Buffer } from '../buffer/buffer.js';
import { flushDeferredReleases, releaseDroppedBuffers } from '../buffer/buffer-release.js';
import type { MemoryResource } from '../buffer/memory-resource.js';
import { currentResource, setCurrentResource } from '../resources/current-resource.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream } from '../stream/stream.js';
import { trackAllocations } from './allocation-tracker.js';
import { onOutOfMemory, outOfMemoryStatistics, setOutOfMemoryRecovery } from './out-of-memory.js';

const gibibyte = 1024 * 1024 * 1024;
const mebibyte = 1024 * 1024;
const collect = (globalThis as { gc?: () => void }).gc;

function allocateAndDrop(mr: MemoryResource, size: number): void {
  mr.allocate(size);
}

describeEachDriver(adapters, 'out-of-memory recovery', (entry) => {
  beforeAll(() => {
    // The reference driver of the matrix has 8 GiB; a small one makes its out-of-memory quick.
    useDriver(entry.isReference ? createReferenceDriver({ totalMemory: 64 * mebibyte }) : entry.driver);
  });

  it('allocating and dropping buffers of 3x the device memory without close() does not run out', () => {
    const size = entry.isReference ? 8 * mebibyte : gibibyte;
    const total = entry.isReference ? 64 * mebibyte : entry.driver.deviceTotalMem(0);
    const rounds = Math.ceil((3 * total) / size);
    const mr = new DeviceMemoryResource(0, {});
    let hookCalls = 0;
    const unhook = onOutOfMemory(
      () => {
        hookCalls++;
        return false;
      },
      { device: 0 },
    );
    const before = outOfMemoryStatistics();
    try {
      for (let i = 0; i < rounds; i++) allocateAndDrop(mr, size);
    } finally {
      unhook();
    }
    const after = outOfMemoryStatistics();
    const events = after.events - before.events;
    const retries = after.retries - before.retries;
    const released = after.releasedBuffers - before.releasedBuffers;
    console.error(
      `gpu-report: oom-recovery [${entry.name}] ${rounds} x ${size} bytes (3x ${total}) dropped without close(): ` +
        `${events} out-of-memory events, ${retries} retries, ${after.recovered - before.recovered} recovered, ` +
        `${released} dropped buffers released, ${after.collections - before.collections} collections, ${hookCalls} hook calls`,
    );
    // Only recovery can explain finishing: 3x the memory went through and nothing was closed.
    expect(events).toBeGreaterThan(0);
    expect(after.recovered - before.recovered).toBe(events);
    expect(released).toBeGreaterThanOrEqual(rounds - Math.floor(total / size));
    expect(hookCalls).toBe(0);
    defaultStream(0).sync();
    mr.close();
  });

  it('without recovery of dropped buffers the same loop runs out (the test above is not vacuous)', () => {
    const size = entry.isReference ? 8 * mebibyte : gibibyte;
    const total = entry.isReference ? 64 * mebibyte : entry.driver.deviceTotalMem(0);
    const mr = new DeviceMemoryResource(0, {});
    setOutOfMemoryRecovery({ releaseDropped: false, maxAttempts: 0 });
    const held: Buffer[] = [];
    try {
      // Held, not dropped: without recovery the first allocation past the memory fails.
      expect(() => {
        for (let i = 0; i <= total / size; i++) held.push(mr.allocate(size));
      }).toThrow(/CUDA_ERROR_OUT_OF_MEMORY/);
    } finally {
      setOutOfMemoryRecovery({ releaseDropped: true, maxAttempts: 3 });
      for (const buffer of held) buffer.close();
      defaultStream(0).sync();
      mr.close();
    }
  });

  it('a buffer released by recovery is not freed again by its finalizer', async () => {
    if (!collect) throw new Error('run with --expose-gc (see vitest.config.ts)');
    using mr = new DeviceMemoryResource(0, {}).enableStatistics();
    using tracker = trackAllocations({ resource: mr });
    allocateAndDrop(mr, 4096);
    allocateAndDrop(mr, 8192);
    // Counted through the tracker of this resource: buffers earlier tests dropped may be released too.
    expect(releaseDroppedBuffers()).toBeGreaterThanOrEqual(2);
    expect(tracker.releasedByFinalizer()).toHaveLength(2);
    expect(mr.statistics().bytes.current).toBe(0);
    // Give the finalizer every chance to run: it must find its records done.
    flushDeferredReleases();
    for (let round = 0; round < 10; round++) {
      collect();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(tracker.releasedByFinalizer()).toHaveLength(2);
    expect(mr.statistics().bytes.current).toBe(0);
    expect(mr.statistics().allocations.current).toBe(0);
    expect(
      tracker
        .releasedByFinalizer()
        .map((allocation) => allocation.size)
        .sort(),
    ).toEqual([4096, 8192]);
  });

  describe('current resource', () => {
    it('defaults to a DeviceMemoryResource of the device, kept; set returns the previous one', () => {
      const fallback = currentResource(0);
      expect(fallback).toBeInstanceOf(DeviceMemoryResource);
      expect(fallback.deviceId).toBe(0);
      expect(currentResource(0)).toBe(fallback);
      using pool = new DeviceMemoryResource(0, {});
      expect(setCurrentResource(0, pool)).toBe(fallback);
      expect(currentResource(0)).toBe(pool);
      using pinned = new PinnedMemoryResource();
      expect(setCurrentResource(0, pinned)).toBe(pool);
      expect(setCurrentResource(0, null)).toBe(pinned);
      expect(currentResource(0)).toBeInstanceOf(DeviceMemoryResource);
    });

    it('refuses bad arguments before touching anything', () => {
      using pool = new DeviceMemoryResource(0, {});
      expect(() => setCurrentResource(0, {} as MemoryResource)).toThrow(TypeError);
      expect(() => setCurrentResource(-1, pool)).toThrow(RangeError);
      expect(() => setCurrentResource(99, pool)).toThrow(RangeError);
      expect(() => currentResource('0' as never)).toThrow(TypeError);
      const closed = new DeviceMemoryResource(0, {});
      closed.close();
      expect(() => setCurrentResource(0, closed)).toThrow(/closed/);
    });
  });
});

describe('recovery without --expose-gc (child process)', () => {
  it('obtains a collector at run time and sees WeakRefs of the same job die after clearKeptObjects()', () => {
    const script = fileURLToPath(new URL('../../test/fixtures/late-gc-child.mjs', import.meta.url));
    requireBuiltPackage('the child', 'diagnostics/garbage-collection.js');
    // Without --expose-gc anywhere: `pnpm test:gpu` puts it in NODE_OPTIONS, which a child inherits.
    const nodeOptions = (process.env.NODE_OPTIONS ?? '').replace(/--expose[-_]gc/g, '').trim();
    const result = spawnSync(process.execPath, [script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    });
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(report).toEqual({
      exposedBefore: false,
      collector: 'function',
      aliveWithoutClear: true,
      aliveAfter: false,
    });
  });
});
