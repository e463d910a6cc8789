// Where a buffer's memory lives (memory-facts.ts): a built-in resource's facts are recorded once,
// since they cannot change; a resource that could answer otherwise (a class of the user's, a
// subclass of a built-in one) keeps being asked through its getters, as it always was.
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Buffer } from './buffer.js';
import { bufferState } from './buffer-base.js';
import { MemoryResource } from './memory-resource.js';

describeEachDriver(adapters, 'memory facts', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('built-in resources', () => {
    it('give their buffers and slices the facts their getters state', () => {
      const device = new DeviceMemoryResource(0);
      const legacy = new LegacyPinnedMemoryResource();
      for (const resource of [device, legacy]) {
        using buffer = resource.allocate(64);
        using slice = buffer.slice(16, 16);
        for (const value of [buffer, slice]) {
          expect(value.deviceId).toBe(resource.deviceId);
          expect(value.isDeviceAccessible).toBe(resource.isDeviceAccessible);
          expect(value.isHostAccessible).toBe(resource.isHostAccessible);
          expect(value.isManaged).toBe(false);
          expect(bufferState(value).isDeviceOnly).toBe(resource === device);
        }
      }
      expect([legacy.deviceId, legacy.isDeviceAccessible, legacy.isHostAccessible]).toEqual([-1, true, true]);
    });
  });

  describe('resources whose getters may answer otherwise', () => {
    it("follow a subclass's override of a built-in resource's getter", () => {
      // A subclass of the user's is not frozen and may say its memory is something else: cumem's
      // copies and checks go on asking it, as they did before facts were recorded.
      class Relabelled extends DeviceMemoryResource {
        override get deviceId(): number {
          return 7;
        }
      }
      using buffer = new Relabelled(0).allocate(64);
      expect(buffer.deviceId).toBe(7);
      expect(bufferState(buffer).workDevice(null)).toBe(7);
    });

    it("read a user's resource through its getters at every read", () => {
      class Borrowing extends MemoryResource {
        hostAccessible = false;
        allocate(): Buffer {
          throw new Error('not used');
        }
        deallocate(): void {}
        get isDeviceAccessible(): boolean {
          return true;
        }
        get isHostAccessible(): boolean {
          return this.hostAccessible;
        }
        get deviceId(): number {
          return 0;
        }
      }
      const device = new DeviceMemoryResource(0);
      using owner = device.allocate(64);
      const mr = new Borrowing();
      // An empty wrapper owns nothing, so mr is never asked to free the owner's memory.
      const wrapper = Buffer.fromHandle(owner.handle, 0, { mr });
      expect(wrapper.isHostAccessible).toBe(false);
      expect(bufferState(wrapper).isDeviceOnly).toBe(true);
      mr.hostAccessible = true;
      expect(wrapper.isHostAccessible).toBe(true);
      expect(bufferState(wrapper).isDeviceOnly).toBe(false);
      wrapper.close();
    });
  });

  describe('memory no resource owns', () => {
    it('answers from the driver, and a slice as its parent does', () => {
      using owner = new DeviceMemoryResource(0).allocate(64);
      using borrowed = Buffer.fromHandle(owner.handle, 64);
      using slice = borrowed.slice(8, 8);
      expect([slice.deviceId, slice.isDeviceAccessible, slice.isHostAccessible]).toEqual([0, true, false]);
      expect([borrowed.deviceId, borrowed.isManaged]).toEqual([0, false]);
    });
  });
});
