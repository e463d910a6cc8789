// Issue 10, classes 3 and 4: sizes that lie (fromHandle past the allocation) and two owners of
// one pointer (deallocate of a live buffer's pointer, a second fromHandle owner).
import { CudaStateError, PointerAttribute, PointerHandleAttribute } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { setCurrentDevice } from '../runtime/device-queries.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Buffer } from './buffer.js';
import type { MemoryResource } from './memory-resource.js';

const KiB = 1024;

describeEachDriver(adapters, 'pointer ownership', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
    // the driver's own calls below (memAlloc, memHostAlloc) need the device's context current
    setCurrentDevice(0);
  });

  // Bytes from `pointer` to the end of its allocation, as the driver reports the range.
  const bytesToEnd = (pointer: bigint) => {
    const start = entry.driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.RangeStartAddress);
    const size = entry.driver.pointerGetAttribute(pointer, PointerAttribute.RangeSize);
    return Number(start + BigInt(size) - pointer);
  };

  describe('Buffer.fromHandle checks the size against the allocation the driver knows', () => {
    it('memAlloc memory: a size past the range is a RangeError, the whole range is fine', () => {
      const pointer = entry.driver.memAlloc(64 * KiB);
      try {
        expect(() => Buffer.fromHandle(pointer, 1 << 30)).toThrow(RangeError);
        expect(() => Buffer.fromHandle(pointer, 1 << 30)).toThrow(/RANGE_SIZE/);
        const inside = pointer + 1000n;
        const room = bytesToEnd(inside);
        expect(room).toBeGreaterThanOrEqual(64 * KiB - 1000);
        expect(() => Buffer.fromHandle(inside, room + 1)).toThrow(RangeError);
        const view = Buffer.fromHandle(inside, room);
        expect(view.size).toBe(room);
        view.close();
        Buffer.fromHandle(pointer, 64 * KiB).fill(3);
      } finally {
        entry.driver.memFree(pointer);
      }
    });

    it('pool and pinned memory, and with an mr: checked before the buffer owns anything', () => {
      const mr = new DeviceMemoryResource(0, {});
      const buffer = mr.allocate(64 * KiB);
      expect(() => Buffer.fromHandle(buffer.handle, 1 << 30)).toThrow(RangeError);
      expect(() => Buffer.fromHandle(buffer.handle + 4n, bytesToEnd(buffer.handle + 4n) + 1)).toThrow(
        RangeError,
      );
      buffer.close();
      mr.close();
      const legacy = new LegacyPinnedMemoryResource();
      const pointer = entry.driver.memHostAlloc(4 * KiB, 0);
      expect(() => Buffer.fromHandle(pointer, 1 << 30, { mr: legacy })).toThrow(RangeError);
      // the refused call adopted nothing: the same pointer can be handed over once
      Buffer.fromHandle(pointer, 4 * KiB, { mr: legacy }).close();
    });

    it('memory the driver does not know (pageable JS memory) cannot be checked and is wrapped as given', () => {
      const bytes = new Uint8Array(4 * KiB);
      const view = Buffer.fromHandle(entry.driver.addressOf(bytes), bytes.byteLength, { owner: bytes });
      expect(view.size).toBe(4 * KiB);
      expect(view.isHostAccessible).toBe(true);
    });
  });

  const resources: [string, () => MemoryResource | undefined][] = [
    ['DeviceMemoryResource (own pool)', () => new DeviceMemoryResource(0, {})],
    ['DeviceMemoryResource (current pool)', () => new DeviceMemoryResource(0)],
    [
      'PinnedMemoryResource',
      () => (entry.driver.capabilities.hostMemoryPools ? new PinnedMemoryResource() : undefined),
    ],
    ['LegacyPinnedMemoryResource', () => new LegacyPinnedMemoryResource()],
    ['ManagedMemoryResource', () => new ManagedMemoryResource()],
  ];

  for (const [name, make] of resources) {
    describe(name, () => {
      it("deallocate of an open buffer's pointer is refused, and the buffer keeps working", (context) => {
        const mr = make();
        if (mr === undefined) return context.skip('not applicable: the driver has no host memory pools');
        const buffer = mr.allocate(4 * KiB);
        buffer.fill(0x5a);
        expect(() => mr.deallocate(buffer.handle, buffer.size)).toThrow(CudaStateError);
        expect(() => mr.deallocate(buffer.handle, buffer.size)).toThrow(/close the Buffer instead/);
        expect(() => mr.deallocate(buffer.handle, buffer.size)).toThrow(buffer.handle.toString(16));
        // closing the resource must not destroy a pool under the open buffer either
        mr.close();
        const back = new Uint8Array(4 * KiB);
        buffer.copyTo(back);
        expect(back.every((byte) => byte === 0x5a)).toBe(true);
        buffer.close();
        expect(buffer.isClosed).toBe(true);
      });

      it('fromHandle with { mr } of a pointer an open buffer of mr owns is refused', (context) => {
        const mr = make();
        if (mr === undefined) return context.skip('not applicable: the driver has no host memory pools');
        const buffer = mr.allocate(4 * KiB);
        expect(() => Buffer.fromHandle(buffer.handle, buffer.size, { mr })).toThrow(CudaStateError);
        expect(() => Buffer.fromHandle(buffer.handle, buffer.size, { mr })).toThrow(/already owns/);
        // a view that borrows (no mr) is still fine: it frees nothing
        Buffer.fromHandle(buffer.handle, buffer.size, { owner: buffer }).fill(1);
        buffer.close();
        mr.close();
      });
    });
  }

  it('memory handed over with fromHandle({ mr }) has one owner too', () => {
    const mr = new LegacyPinnedMemoryResource();
    const pointer = entry.driver.memHostAlloc(4 * KiB, 0);
    const owner = Buffer.fromHandle(pointer, 4 * KiB, { mr });
    expect(() => Buffer.fromHandle(pointer, 4 * KiB, { mr })).toThrow(CudaStateError);
    expect(() => mr.deallocate(pointer, 4 * KiB)).toThrow(CudaStateError);
    owner.close();
    expect(owner.isClosed).toBe(true);
  });
});
