// cuda.core's live memory-resource count tests, translated case by case into cumem's API:
// upstream NVIDIA/cuda-python cuda_core/tests/memory/test_resource_live_count.py at commit
// 47dfed47d59f496538cac0324d7cf348e642dcbd.
//
// cuda.core counts every live MemoryResource in a private counter; cumem's public view of its
// live resources is `memoryReport().resources`: every open built-in resource that counts
// statistics (`enableStatistics()`), which each case turns on. Python frees a resource at `del`;
// in cumem a resource leaves the count at `close()`, or when it is garbage-collected unclosed.
// As upstream, each case compares with the count read at its start.
//
// Not ported:
// - test_subclass_with_init_args_is_counted for a direct subclass of MemoryResource: cumem counts
//   its built-in resources only (statistics of a user's own resource are NotSupportedError); the
//   case runs on a subclass of DeviceMemoryResource whose constructor takes other arguments.
// - test_concurrent_construct_and_drop_returns_to_start, the threads: each worker thread loads
//   its own copy of cumem, so no count is shared between threads; the case constructs and drops
//   the same number of resources across event-loop turns instead.

import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { DeviceMemoryResource, memoryReport, setCurrentDevice, useDriver } from '../../src/index.js';
import { adapters } from '../adapters.js';

/** The live resources cumem reports. */
function liveResourceCount(): number {
  return memoryReport().resources.length;
}

/** A resource with a field of the user's (built-in resources made as themselves are frozen). */
class CountedResource extends DeviceMemoryResource {
  selfReference: CountedResource | null = null;
}

class CountedResourceWithArguments extends DeviceMemoryResource {
  constructor(
    readonly a: number,
    readonly b: number,
  ) {
    super(0, { maxSize: 0 });
  }
}

/** Makes a counted resource and drops it in a frame of its own, so nothing here keeps it. */
function constructAndDrop(make: () => DeviceMemoryResource): void {
  make().enableStatistics();
}

describeEachDriver(adapters, 'cuda.core test_resource_live_count.py', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
    setCurrentDevice(0);
  });

  it('test_new_resource_is_counted_until_freed: counted while open, not after close', () => {
    const before = liveResourceCount();
    const mr = new DeviceMemoryResource(0, {}).enableStatistics();
    expect(liveResourceCount()).toBe(before + 1);
    mr.close();
    expect(liveResourceCount()).toBe(before);
  });

  it('test_resource_in_cycle_stays_counted_until_collect: a dropped resource in a cycle leaves the count when collected', async () => {
    const before = liveResourceCount();
    (() => {
      const mr = new CountedResource(0, {}).enableStatistics();
      mr.selfReference = mr;
    })();
    // Nothing is collected before this job ends, so the dropped resource is still counted.
    expect(liveResourceCount()).toBe(before + 1);
    expect(await collectGarbageUntil(() => liveResourceCount() === before)).toBe(true);
  });

  it('test_subclass_with_init_args_is_counted: a subclass whose constructor takes other arguments', () => {
    const before = liveResourceCount();
    const mr = new CountedResourceWithArguments(1, 2).enableStatistics();
    expect(liveResourceCount()).toBe(before + 1);
    expect([mr.a, mr.b]).toEqual([1, 2]);
    mr.close();
    expect(liveResourceCount()).toBe(before);
  });

  it("test_cython_subclass_wrapper_is_counted: a wrapper of the device's current pool is counted and uncounted", () => {
    const before = liveResourceCount();
    const mr = new DeviceMemoryResource(0).enableStatistics();
    expect(mr.isHandleOwned).toBe(false);
    expect(liveResourceCount()).toBe(before + 1);
    mr.close();
    expect(liveResourceCount()).toBe(before);
  });

  it('test_concurrent_construct_and_drop_returns_to_start: many dropped resources, across turns, leave the count where it was', async () => {
    const before = liveResourceCount();
    const turns = 8;
    const perTurn = 200;
    for (let turn = 0; turn < turns; turn++) {
      for (let index = 0; index < perTurn; index++) constructAndDrop(() => new DeviceMemoryResource(0));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(await collectGarbageUntil(() => liveResourceCount() === before)).toBe(true);
  });
});
