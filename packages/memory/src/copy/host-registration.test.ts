// registerHostMemory and the routing of large pageable copies through the staged engine.
import { CudaStateError } from '@cumem/core-types';
import { collectGarbageUntil, withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { isRegisteredHostMemory, registerHostMemory } from './host-registration.js';
import { configureStaging, stagingSettings } from './staging-settings.js';

const MiB = 1024 * 1024;

function pattern(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index++) bytes[index] = (index * 31 + seed) & 0xff;
  return bytes;
}

describeEachDriver(adapters, 'registerHostMemory and staged copies', (entry) => {
  let mr: DeviceMemoryResource;
  const initial = stagingSettings();
  beforeAll(() => {
    useDriver(entry.driver);
    mr = new DeviceMemoryResource(0);
  });
  afterEach(() => {
    configureStaging(initial);
  });

  describe('registerHostMemory', () => {
    it('registers a view in place, copies through it, and close() unregisters it once', () => {
      const data = pattern(2 * MiB);
      const registration = registerHostMemory(data);
      expect(registration.pointer).toBe(entry.driver.addressOf(data));
      expect(registration.byteLength).toBe(2 * MiB);
      expect(isRegisteredHostMemory(data)).toBe(true);
      expect(isRegisteredHostMemory(data.subarray(5, 100))).toBe(true);
      using buffer = mr.allocate(2 * MiB);
      buffer.copyFrom(data);
      const back = new Uint8Array(2 * MiB);
      buffer.copyTo(back);
      expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
      registration.close();
      registration.close();
      expect(registration.closed).toBe(true);
      expect(isRegisteredHostMemory(data)).toBe(false);
      // Unregistered: it can be registered again.
      registerHostMemory(data).close();
    });

    it('a view inside a larger registered range is registered; one reaching outside it is not', () => {
      const buffer = new ArrayBuffer(3 * 65536);
      using registration = registerHostMemory(new Uint8Array(buffer, 65536, 65536));
      expect(registration.byteLength).toBe(65536);
      expect(isRegisteredHostMemory(new Uint8Array(buffer, 65536, 100))).toBe(true);
      expect(isRegisteredHostMemory(new Uint8Array(buffer, 0, 65537))).toBe(false);
      expect(isRegisteredHostMemory(new Uint8Array(buffer, 65536 * 2 - 1, 2))).toBe(false);
    });

    it('overlapping registrations are refused, naming the range; bad input is refused before any driver call', () => {
      const data = new Uint8Array(65536);
      using registration = registerHostMemory(data);
      expect(registration.closed).toBe(false);
      expect(() => registerHostMemory(data.subarray(100))).toThrow(CudaStateError);
      expect(() => registerHostMemory(data.subarray(100))).toThrow(/overlap .*registered range 0x/);
      withCountingDriver(useDriver, entry.driver, (log) => {
        expect(() => registerHostMemory(new Uint8Array(0))).toThrow(RangeError);
        expect(() => registerHostMemory('bytes' as unknown as ArrayBuffer)).toThrow(TypeError);
        expect(() => registerHostMemory(new Uint8Array(8), { flags: 1.5 })).toThrow(TypeError);
        // Found by the public-API fuzz: null options once read `null.flags`.
        expect(() => registerHostMemory(new ArrayBuffer(8), null as never)).toThrow(
          /options must be an object or undefined, got null/,
        );
        expect(() => registerHostMemory(new ArrayBuffer(8), 7 as never)).toThrow(TypeError);
        expect(log.calls).toEqual([]);
      });
    });

    it('the registered ArrayBuffer cannot be detached by a transfer while registered', () => {
      const buffer = new ArrayBuffer(65536);
      using registration = registerHostMemory(buffer);
      expect(registration.byteLength).toBe(65536);
      try {
        structuredClone(buffer, { transfer: [buffer] });
      } catch {
        // Newer Node versions refuse the transfer outright; Node 20 copies instead.
      }
      expect(buffer.byteLength).toBe(65536);
    });

    it('a dropped registration is unregistered after garbage collection, and its buffer lived until then', async () => {
      const data = new Uint8Array(65536);
      (() => {
        registerHostMemory(data);
      })();
      expect(isRegisteredHostMemory(data)).toBe(true);
      await collectGarbageUntil(() => !isRegisteredHostMemory(data));
      expect(isRegisteredHostMemory(data)).toBe(false);
      registerHostMemory(data).close();
    });
  });

  describe('staged copies', () => {
    it('copies at or above minBytes go through stagedCopyHtoD / stagedCopyDtoH, byte-exact; smaller ones do not', () => {
      configureStaging({ minBytes: MiB, chunkBytes: 256 * 1024 + 3, threads: 3 });
      withCountingDriver(useDriver, entry.driver, (log) => {
        using buffer = new DeviceMemoryResource(0).allocate(3 * MiB + 5);
        const data = pattern(3 * MiB + 5, 7);
        log.reset();
        buffer.copyFrom(data);
        expect(log.calls).toContain('stagedCopyHtoD');
        const back = new Uint8Array(3 * MiB + 5);
        log.reset();
        buffer.copyTo(back);
        expect(log.calls).toContain('stagedCopyDtoH');
        expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
        using small = new DeviceMemoryResource(0).allocate(MiB - 1);
        log.reset();
        small.copyFrom(data.subarray(0, MiB - 1));
        expect(log.calls).not.toContain('stagedCopyHtoD');
      });
    });

    it('registered memory is never staged', () => {
      configureStaging({ minBytes: 0 });
      withCountingDriver(useDriver, entry.driver, (log) => {
        using buffer = new DeviceMemoryResource(0).allocate(MiB);
        const data = pattern(MiB, 3);
        using registration = registerHostMemory(data);
        expect(registration.closed).toBe(false);
        log.reset();
        buffer.copyFrom(data);
        buffer.copyTo(data);
        expect(log.calls.filter((call) => call.startsWith('staged'))).toEqual([]);
      });
    });

    it('configureStaging checks its fields and minBytes Infinity turns staging off', () => {
      expect(() => configureStaging({ threads: 0 })).toThrow(RangeError);
      expect(() => configureStaging({ chunkBytes: 0 })).toThrow(RangeError);
      expect(() => configureStaging({ minBytes: -1 })).toThrow(RangeError);
      expect(configureStaging({ minBytes: Number.POSITIVE_INFINITY }).minBytes).toBe(
        Number.POSITIVE_INFINITY,
      );
    });
  });
});
