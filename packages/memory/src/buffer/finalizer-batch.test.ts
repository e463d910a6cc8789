// The finalizer batch (buffer-release.ts) flushes a full batch before it queues the next buffer,
// not as the buffer that fills it arrives: that buffer is not registered at once (its close a
// moment later would only cancel it), and is still freed when dropped.
import { createReferenceDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../test/garbage.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream } from '../stream/stream.js';
import { Buffer } from './buffer.js';
import { flushDeferredReleases } from './buffer-release.js';
import { type LiveAllocations, liveAllocationsOf } from './live-allocations.js';

const batchSize = 256;

// The resource's Set of settled pointers: a buffer enters it when the batch registers it.
const live = (mr: DeviceMemoryResource) => liveAllocationsOf(mr) as LiveAllocations;
const settled = (mr: DeviceMemoryResource) =>
  (live(mr) as unknown as { pointers: Set<number> }).pointers.size;

describe('finalizer batch', () => {
  beforeAll(() => useDriver(createReferenceDriver()));

  it('does not register the buffer that fills the batch at once, but with the next flush', () => {
    const mr = new DeviceMemoryResource(0, {});
    flushDeferredReleases();
    for (let index = 0; index < batchSize - 1; index++) mr.allocate(4096).close();
    const open = mr.allocate(4096);
    // The batch is full and not yet flushed: the buffer just made is not registered.
    expect(settled(mr)).toBe(0);
    expect(live(mr).count).toBe(1);
    // The next allocate flushes it first: the buffer, still open, is registered then.
    mr.allocate(4096).close();
    expect(settled(mr)).toBe(1);
    open.close();
    expect(live(mr).count).toBe(0);
    defaultStream(0).sync();
    expect(mr.attributes.usedMemCurrent).toBe(0);
    mr.close();
  });

  it('frees that buffer when it is dropped', async () => {
    const mr = new DeviceMemoryResource(0, {});
    flushDeferredReleases();
    (() => {
      for (let index = 0; index < batchSize - 1; index++) mr.allocate(4096).close();
      mr.allocate(65_536);
    })();
    expect(mr.attributes.usedMemCurrent).toBe(65_536);
    await new Promise((resolve) => setImmediate(resolve));
    await collectGarbage(
      50,
      () => mr.attributes.usedMemCurrent === 0,
      () => defaultStream(0).sync(),
    );
    expect(mr.attributes.usedMemCurrent).toBe(0);
    expect(live(mr).count).toBe(0);
    mr.close();
  });

  // close() counts the batch's buffers it closes, so that a batch whose buffers were all closed
  // is dropped without asking each. Only a buffer still in the batch may be counted: a registered
  // one (from an earlier batch), a slice or an empty buffer counted would make the flush skip a
  // buffer of the batch that is still open, which then would never be freed when dropped.
  it('registers the open buffer of a batch when the closes around it were of buffers not in it', () => {
    const mr = new DeviceMemoryResource(0, {});
    const earlier = mr.allocate(4096);
    flushDeferredReleases();
    expect(settled(mr)).toBe(1);
    const open = mr.allocate(8192);
    earlier.close();
    earlier.close();
    open.slice(0, 16).close();
    mr.allocate(0).close();
    Buffer.fromHandle(open.handle, 16, { owner: open }).close();
    expect(settled(mr)).toBe(0);
    flushDeferredReleases();
    expect(settled(mr)).toBe(1);
    expect(live(mr).count).toBe(1);
    open.close();
    expect(live(mr).count).toBe(0);
    mr.close();
  });

  it('registers none of a batch whose buffers were all closed, and counts again from the next one', () => {
    const mr = new DeviceMemoryResource(0, {});
    flushDeferredReleases();
    for (let index = 0; index < 10; index++) mr.allocate(4096).close();
    flushDeferredReleases();
    expect(settled(mr)).toBe(0);
    const closed = mr.allocate(4096);
    const open = mr.allocate(4096);
    closed.close();
    flushDeferredReleases();
    expect(settled(mr)).toBe(1);
    open.close();
    expect(live(mr).count).toBe(0);
    mr.close();
  });
});
