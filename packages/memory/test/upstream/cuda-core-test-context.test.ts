/**
 * cuda.core's context test, translated into an acceptance case for how `@cumem/memory` handles
 * CUDA contexts.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_context.py`, as read at commit
 * 74eccf17453b9f5153bfcb03d3df2dafe41fdb23. Its one case checks that a Context object cannot be
 * made directly (only the library hands them out).
 *
 * cumem's documented difference: there is no Context object at all. Each device's primary context
 * is retained and made current by the library (`setCurrentDevice`, and every call on a device), so
 * a user can neither construct a context nor hold one; the raw handle is reachable only through
 * `currentDriver()`, the unsafe driver contract. The case checks both halves: nothing named
 * Context is exported, and the context cumem makes current is the device's primary context.
 *
 * Not ported: nothing (the one upstream case is translated below).
 */
import * as memory from '@cumem/memory';
import { currentDriver, Device, Stream, setCurrentDevice, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';

describeEachDriver(adapters, 'cuda.core test_context.py', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('test_context_init_disabled: there is no Context to construct; cumem makes the primary context current', () => {
    expect(Object.keys(memory).filter((name) => /context/i.test(name))).toEqual([]);

    const driver = currentDriver();
    setCurrentDevice(new Device(0));
    const primary = driver.primaryContextRetain(0);
    try {
      expect(primary).not.toBe(0n);
      expect(driver.contextGetCurrent()).toBe(primary);
      // Work on the device runs in that same context, not in one cumem made of its own.
      using stream = Stream.create(new Device(0));
      stream.sync();
      expect(driver.contextGetCurrent()).toBe(primary);
    } finally {
      driver.primaryContextRelease(0);
    }
  });
});
