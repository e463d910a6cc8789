// Issue 26: allocate + close keep a new buffer's pointer out of the resource's Set until it
// outlives its finalizer batch (live-allocations.ts), and a tracker keeps its newest entries in
// arrays before its Map (allocation-tracker.ts). These pin that every question by address still
// sees every open buffer: one made in this very turn, never flushed, included.
import { CudaStateError } from '@cumem/core-types';
import { countingDriver, createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { trackAllocations } from '../diagnostics/allocation-tracker.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from '../stream/stream.js';
import { Buffer } from './buffer.js';
import { holdMemory } from './memory-holds.js';

describeEachDriver(adapters, 'allocate/close bookkeeping', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  const resources = {
    DeviceMemoryResource: () => new DeviceMemoryResource(0, {}),
    PinnedMemoryResource: () => new PinnedMemoryResource({}),
    ManagedMemoryResource: () => new ManagedMemoryResource(),
  };

  for (const [name, make] of Object.entries(resources)) {
    describe(name, () => {
      it('deallocate and fromHandle refuse the pointer of a buffer made in this turn (not yet flushed)', () => {
        using mr = make();
        const buffer = mr.allocate(4096);
        expect(() => mr.deallocate(buffer.handle, 4096)).toThrow(CudaStateError);
        expect(() => Buffer.fromHandle(buffer.handle, 4096, { mr })).toThrow(CudaStateError);
        buffer.close();
        expect(mr.statistics().enabled).toBe(false);
      });

      it('deallocate refuses the pointer of a closed buffer whose free waits for a hold', () => {
        using mr = make();
        const buffer = mr.allocate(4096);
        const release = holdMemory(buffer);
        buffer.close();
        expect(buffer.isClosed).toBe(true);
        // Still allocated (the hold reads it): a second free would free it twice.
        expect(() => mr.deallocate(buffer.handle, 4096)).toThrow(CudaStateError);
        release();
        mr.enableStatistics();
        const after = mr.allocate(512);
        after.close();
        expect(mr.statistics().allocations).toEqual({ current: 0, peak: 1, total: 1 });
        expect(mr.statistics().bytes.current).toBe(0);
      });

      it('statistics started while unflushed buffers are open leave those out, exactly', () => {
        using mr = make();
        const before = [mr.allocate(1024), mr.allocate(2048)];
        mr.enableStatistics();
        const during = mr.allocate(4096);
        before[0]?.close();
        expect(mr.statistics().bytes.current).toBe(4096);
        during.close();
        before[1]?.close();
        const { bytes, allocations } = mr.statistics();
        expect(bytes).toEqual({ current: 0, peak: 4096, total: 4096 });
        expect(allocations).toEqual({ current: 0, peak: 1, total: 1 });
      });
    });
  }

  it('a tracker lists its outstanding allocations in order past its array of newest ones', () => {
    using mr = new DeviceMemoryResource(0, {});
    using tracker = trackAllocations({ resource: mr });
    const buffers = Array.from({ length: 40 }, (_, index) => mr.allocate(256 + index));
    // Close some in the middle, among the oldest, and the newest.
    for (const index of [3, 20, 35, 39, 0]) buffers[index]?.close();
    const open = buffers.filter((buffer) => !buffer.isClosed);
    expect(tracker.outstanding().map((allocation) => allocation.pointer)).toEqual(
      open.map((buffer) => buffer.handle),
    );
    for (const buffer of open) buffer.close();
    expect(tracker.outstanding()).toEqual([]);
    expect(mr.statistics().allocations.current).toBe(0);
  });

  it('allocate and close on a stream, many times, leave the counts exact', () => {
    using mr = new DeviceMemoryResource(0, {}).enableStatistics();
    const stream = Stream.create();
    try {
      const kept: Buffer[] = [];
      for (let i = 0; i < 1000; i++) {
        const buffer = mr.allocate(4096, { stream });
        if (i % 100 === 0) kept.push(buffer);
        else buffer.close({ stream });
      }
      expect(mr.statistics().allocations.current).toBe(kept.length);
      for (const buffer of kept) expect(() => mr.deallocate(buffer.handle, 4096)).toThrow(CudaStateError);
      for (const buffer of kept) buffer.close({ stream });
      expect(mr.statistics().allocations).toEqual({ current: 0, peak: kept.length + 1, total: 1000 });
      stream.sync();
    } finally {
      stream.close();
    }
  });
});

describe('allocate/close bookkeeping and the pool', () => {
  it('closing a resource with an unflushed open buffer destroys its pool only after that buffer is freed', () => {
    const { driver, log } = countingDriver(createReferenceDriver());
    useDriver(driver);
    const mr = new DeviceMemoryResource(0, {});
    const buffer = mr.allocate(4096);
    log.reset();
    mr.close();
    expect(log.calls).not.toContain('memPoolDestroy');
    buffer.close();
    expect(log.calls).toContain('memFreeAsync');
    expect(log.calls).toContain('memPoolDestroy');
    expect(log.calls.indexOf('memFreeAsync')).toBeLessThan(log.calls.indexOf('memPoolDestroy'));
  });
});
