/**
 * cuda.core's checks that memory resources take their options as a plain dict, translated onto
 * the options objects of `@cumem/memory`'s resources.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory/test_backward_compatibility.py`, as read at
 * commit 2d44c2103e3f5d0bdb96d99fb2867de15ddff2d7. Each case title starts with the upstream function
 * name.
 *
 * How cuda.core's Python maps here: `options={"max_size": POOL_SIZE}` (a dict where cuda.core
 * also takes an options dataclass) -> `{ maxSize: POOL_SIZE }`, a plain object literal, which is
 * the only form cumem's options take; `stream=device.default_stream` -> `defaultStream(device)`.
 *
 * Not ported: nothing.
 */
import type { Driver } from '@cumem/core-types';
import { DeviceAttribute } from '@cumem/core-types';
import {
  Device,
  DeviceMemoryResource,
  defaultStream,
  ManagedMemoryResource,
  PinnedMemoryResource,
  useDriver,
} from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';

/** upstream's `POOL_SIZE`: the pool's maximum size. */
const POOL_SIZE = 2097152;

const attribute = (driver: Driver, id: number) => driver.deviceGetAttribute(id, 0);

/** Allocates 64 bytes on the default stream and closes them there, as every upstream case does. */
function allocateAndClose(mr: DeviceMemoryResource | PinnedMemoryResource | ManagedMemoryResource): void {
  const stream = defaultStream(new Device(0));
  const buffer = mr.allocate(64, { stream });
  expect(buffer.size).toBe(64);
  expect(buffer.memoryResource).toBe(mr);
  buffer.close({ stream });
  expect(buffer.isClosed).toBe(true);
  stream.sync();
  mr.close();
}

describeEachDriver(
  adapters,
  'cuda.core memory/test_backward_compatibility.py: DeviceMemoryResource',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_device_mr_accepts_dict_keyword: an owned pool from a plain { maxSize } object', () => {
      const mr = new DeviceMemoryResource(new Device(0), { maxSize: POOL_SIZE });
      expect(mr.isHandleOwned).toBe(true);
      allocateAndClose(mr);
    });
  },
  {
    requires: (driver) =>
      attribute(driver, DeviceAttribute.MemoryPoolsSupported) === 0
        ? 'not applicable: device 0 has no memory pools'
        : undefined,
  },
);

describeEachDriver(
  adapters,
  'cuda.core memory/test_backward_compatibility.py: PinnedMemoryResource',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_pinned_mr_accepts_dict_keyword: an owned host pool from a plain { maxSize } object', () => {
      const mr = new PinnedMemoryResource({ maxSize: POOL_SIZE });
      expect(mr.isHandleOwned).toBe(true);
      expect(mr.isHostAccessible).toBe(true);
      allocateAndClose(mr);
    });
  },
  {
    requires: (driver) =>
      driver.capabilities.hostMemoryPools ? undefined : 'not applicable: the driver has no host memory pools',
  },
);

describeEachDriver(
  adapters,
  'cuda.core memory/test_backward_compatibility.py: ManagedMemoryResource',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_managed_mr_accepts_dict_keyword: a managed resource from an empty options object', () => {
      const mr = new ManagedMemoryResource({});
      expect(mr.isManaged).toBe(true);
      allocateAndClose(mr);
    });
  },
  {
    requires: (driver) =>
      attribute(driver, DeviceAttribute.ManagedMemory) === 0
        ? 'not applicable: device 0 has no managed memory'
        : undefined,
  },
);
