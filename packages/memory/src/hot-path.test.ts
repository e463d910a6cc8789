// The default allocate/close path must stay lean: exactly one driver call each, no context
// switch once the device is current, and a small JS cost per pair.
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
  'hot path timing',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    // Budget from the issue: allocate + close of 4 KiB within 1.3x the C floor (~0.5 us), i.e.
    // about 150 ns of JS on top of the two driver calls. Reported here; asserted loosely so a
    // busy CI machine does not flake, while a regression by an order of magnitude still fails.
    it('allocate + close of 4 KiB costs little more than the two driver calls', () => {
      const mr = new DeviceMemoryResource(0);
      const stream = Stream.create();
      const driver = entry.driver;
      const pool = mr.handle;
      const handle = stream.handle;
      const cycles = 200_000;
      const time = (body: () => void) => {
        body();
        const start = process.hrtime.bigint();
        body();
        return Number(process.hrtime.bigint() - start) / cycles;
      };
      const raw = time(() => {
        for (let cycle = 0; cycle < cycles; cycle++)
          driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, handle), handle);
      });
      const pairs = (resource: DeviceMemoryResource) => () => {
        for (let cycle = 0; cycle < cycles; cycle++) resource.allocate(4096, { stream }).close();
      };
      const wrapped = time(pairs(mr));
      // Statistics and a tracker hang off the same bookkeeping (issue 26: within 5% and 25%).
      const counted = new DeviceMemoryResource(0).enableStatistics();
      const statistics = time(pairs(counted));
      const tracked = new DeviceMemoryResource(0);
      const tracker = trackAllocations({ resource: tracked });
      const tracking = time(pairs(tracked));
      stream.sync();
      expect(tracker.outstanding()).toEqual([]);
      tracker.close();
      expect(counted.statistics().allocations).toEqual({ current: 0, peak: 1, total: 2 * cycles });
      console.log(
        `gpu-report: allocate+close 4 KiB [${entry.name}]: driver ${raw.toFixed(0)} ns, cumem ${wrapped.toFixed(0)} ns (+${(wrapped - raw).toFixed(0)} ns), statistics ${statistics.toFixed(0)} ns, tracking ${tracking.toFixed(0)} ns`,
      );
      expect(wrapped - raw).toBeLessThan(2_000);
      expect(statistics - raw).toBeLessThan(2_000);
      expect(tracking - raw).toBeLessThan(4_000);
    });
  },
  { gpuOnly: true },
);
