// registerHostMemory against what a program can do to the memory it registered: detach or move
// the ArrayBuffer (a BYOB stream read here, which detaches even an untransferable buffer on
// Node 20; transfer() where Node has it), register overlapping ranges, name devices that do not
// exist. Every driver.
import { CudaStateError, Device } from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { isRegisteredHostMemory, registerHostMemory } from './host-registration.js';

const size = 65536;

function pattern(seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let index = 0; index < size; index++) bytes[index] = (index * 13 + seed) & 0xff;
  return bytes;
}

/**
 * Detaches `buffer` the way a byte stream's BYOB read does, and returns the ArrayBuffer that now
 * owns its memory; undefined when this Node refuses to detach it (a detach key).
 */
async function detachByStream(buffer: ArrayBuffer): Promise<ArrayBufferLike | undefined> {
  const stream = new ReadableStream({
    type: 'bytes',
    pull(controller) {
      controller.enqueue(new Uint8Array(4).fill(9));
    },
  });
  const reader = stream.getReader({ mode: 'byob' });
  try {
    const { value } = await reader.read(new Uint8Array(buffer));
    return value?.buffer;
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return undefined;
  } finally {
    reader.releaseLock();
  }
}

describeEachDriver(adapters, 'registerHostMemory against hostile programs', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('a registration whose buffer a stream read detached is unregistered before the next copy, which copies the right bytes', () =>
    withCountingDriver(useDriver, entry.driver, async (log) => {
      using device = new DeviceMemoryResource(0).allocate(size);
      const buffer = new ArrayBuffer(size);
      const registration = registerHostMemory(buffer);
      const view = new Uint8Array(buffer);
      view.set(pattern(1));
      device.copyFrom(view);
      const moved = await detachByStream(buffer);
      if (moved === undefined) {
        // This Node keeps a registered buffer attached: the registration stays valid.
        expect(buffer.byteLength).toBe(size);
        expect(registration.closed).toBe(false);
        registration.close();
        return;
      }
      expect(buffer.byteLength).toBe(0);
      // The memory's new owner: plain pageable memory now, copied byte-exact.
      const owner = new Uint8Array(moved);
      owner.set(pattern(2));
      log.reset();
      device.copyFrom(owner);
      const unregister = log.calls.indexOf('memHostUnregister');
      expect(unregister).toBeGreaterThanOrEqual(0);
      expect(unregister).toBeLessThan(
        log.calls.findIndex((call) => call.startsWith('memcpy') || call.startsWith('staged')),
      );
      expect(registration.closed).toBe(true);
      expect(isRegisteredHostMemory(owner)).toBe(false);
      const back = new Uint8Array(size);
      device.copyTo(back);
      expect(Buffer.from(back).equals(Buffer.from(pattern(2)))).toBe(true);
      // Closing it later does not unregister twice; the moved memory can be registered anew.
      log.reset();
      registration.close();
      expect(log.calls).not.toContain('memHostUnregister');
      registerHostMemory(owner).close();
      // A view made before the detach now has 0 bytes: a size mismatch, refused.
      expect(view.byteLength).toBe(0);
      expect(() => device.copyFrom(view)).toThrow(RangeError);
    }));

  it('isRegisteredHostMemory and a new registration also release a detached registration first', async () => {
    const buffer = new ArrayBuffer(size);
    const registration = registerHostMemory(buffer);
    const moved = await detachByStream(buffer);
    if (moved === undefined) {
      expect(isRegisteredHostMemory(new Uint8Array(buffer))).toBe(true);
      registration.close();
      return;
    }
    expect(isRegisteredHostMemory(new Uint8Array(moved))).toBe(false);
    expect(registration.closed).toBe(true);
    // Same address, same bytes: no overlap with the released range.
    using again = registerHostMemory(new Uint8Array(moved));
    expect(again.closed).toBe(false);
  });

  it('ArrayBuffer.prototype.transfer() of a registered buffer is refused or released, never copied through', () => {
    const transfer = (ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer) => ArrayBuffer }).transfer;
    const buffer = new ArrayBuffer(size);
    const registration = registerHostMemory(buffer);
    if (transfer === undefined) {
      // Node 20 has no transfer(): nothing to refuse; the stream cases above cover detaching.
      expect(buffer.byteLength).toBe(size);
      registration.close();
      return;
    }
    let moved: ArrayBuffer | undefined;
    try {
      moved = transfer.call(buffer);
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
    }
    if (moved === undefined) {
      expect(registration.closed).toBe(false);
      registration.close();
      return;
    }
    using device = new DeviceMemoryResource(0).allocate(size);
    new Uint8Array(moved).set(pattern(5));
    device.copyFrom(new Uint8Array(moved));
    expect(registration.closed).toBe(true);
    const back = new Uint8Array(size);
    device.copyTo(back);
    expect(Buffer.from(back).equals(Buffer.from(pattern(5)))).toBe(true);
  });

  it('overlapping ranges, also across views and in one page, are refused with the range named', () => {
    const buffer = new ArrayBuffer(4 * size);
    using first = registerHostMemory(new Uint8Array(buffer, size, size));
    expect(first.closed).toBe(false);
    withCountingDriver(useDriver, entry.driver, (log) => {
      for (const [begin, length] of [
        [0, 2 * size],
        [size + 100, 10],
        [2 * size - 1, 2],
        [0, 4 * size],
      ] as const) {
        expect(() => registerHostMemory(new Uint8Array(buffer, begin, length))).toThrow(CudaStateError);
      }
      // Pages away from the registered range: accepted (and closed at once).
      const apart = registerHostMemory(new Uint8Array(buffer, 0, 10));
      expect(apart.closed).toBe(false);
      apart.close();
      expect(log.calls.filter((call) => call === 'memHostRegister')).toHaveLength(1);
      expect(log.calls.filter((call) => call === 'memHostUnregister')).toHaveLength(1);
    });
  });

  it('a device that does not exist is a RangeError before any driver call', () => {
    const count = entry.driver.deviceGetCount();
    withCountingDriver(useDriver, entry.driver, (log) => {
      registerHostMemory(new Uint8Array(size), { device: 0 }).close(); // the device count is asked once
      log.reset();
      for (const device of [-1, count, 2 ** 31, 2 ** 53, 0.5, new Device(count)]) {
        expect(() => registerHostMemory(new Uint8Array(size), { device })).toThrow(RangeError);
      }
      expect(() => registerHostMemory(new Uint8Array(size), { device: '0' as never })).toThrow(TypeError);
      expect(log.calls).toEqual([]);
    });
  });

  it('a view lying about its range pins the memory it really shows, and a resizable buffer claiming not to be is refused', () => {
    const buffer = new ArrayBuffer(4 * size);
    const view = new Uint8Array(buffer, size, size);
    Object.defineProperty(view, 'byteOffset', { value: 0 });
    Object.defineProperty(view, 'byteLength', { value: 4 * size });
    const registration = registerHostMemory(view);
    expect(isRegisteredHostMemory(new Uint8Array(buffer, size, size))).toBe(true);
    expect(isRegisteredHostMemory(new Uint8Array(buffer, 0, size))).toBe(false);
    expect(isRegisteredHostMemory(view)).toBe(true);
    registration.close();
    const resizable = new (ArrayBuffer as unknown as new (n: number, o: object) => ArrayBuffer)(size, {
      maxByteLength: 2 * size,
    });
    if ((resizable as { resizable?: boolean }).resizable === true) {
      Object.defineProperty(resizable, 'resizable', { value: false });
      expect(() => registerHostMemory(resizable)).toThrow(RangeError);
    }
  });
});
