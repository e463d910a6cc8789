// The default allocate/close path must stay lean: exactly one driver call each, no context
// switch once the device is current. Its cost is the bench's to measure.
import { countingDriver, createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { trackAllocations } from './diagnostics/allocation-tracker.js';
import { DeviceMemoryResource } from './resources/device-memory-resource.js';
import { useDriver } from './runtime/driver-selection.js';
import { Stream } from './stream/stream.js';

describe('hot path', () => {
  it('allocate + close is one driver call each, with or without a stream', () => {
    const { driver, log } = countingDriver(createReferenceDriver());
    useDriver(driver);
    const mr = new DeviceMemoryResource(0);
    const stream = Stream.create();
    mr.allocate(4096).close();
    mr.allocate(4096, { stream }).close();
    log.reset();
    for (let cycle = 0; cycle < 10; cycle++) {
      mr.allocate(4096).close();
      mr.allocate(4096, { stream }).close({ stream });
    }
    expect(log.calls).toEqual(
      Array.from({ length: 20 }, () => ['memAllocFromPoolAsync', 'memFreeAsync']).flat(),
    );
    // Statistics and a tracker add no driver call.
    mr.enableStatistics();
    using tracker = trackAllocations({ resource: mr });
    log.reset();
    mr.allocate(4096, { stream }).close({ stream });
    expect(log.calls).toEqual(['memAllocFromPoolAsync', 'memFreeAsync']);
    expect(tracker.outstanding()).toEqual([]);
  });
});

describeEachDriver(
  adapters,
  'hot path on the GPU',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    // What the path costs is measured by the bench (bench/js/allocate-close-parts.mjs), where a
    // figure is compared with its history; a bound here loose enough not to flake on a busy
    // machine could not fail. This checks what can fail: the books stay exact over many cycles.
    it('many allocate + close cycles leave statistics and a tracker exact', () => {
      const mr = new DeviceMemoryResource(0);
      using stream = Stream.create();
      const cycles = 10_000;
      const pairs = (resource: DeviceMemoryResource) => {
        for (let cycle = 0; cycle < cycles; cycle++) resource.allocate(4096, { stream }).close();
      };
      pairs(mr);
      const counted = new DeviceMemoryResource(0).enableStatistics();
      pairs(counted);
      const tracked = new DeviceMemoryResource(0);
      const tracker = trackAllocations({ resource: tracked });
      pairs(tracked);
      stream.sync();
      expect(tracker.outstanding()).toEqual([]);
      tracker.close();
      expect(counted.statistics().allocations).toEqual({ current: 0, peak: 1, total: cycles });
    });
  },
  { gpuOnly: true },
);
