import { DRIVER_CONTRACT_VERSION, DriverUnavailableError } from '@cumem/core-types';
import { type EntryPointRow, entryPointTable } from '@cumem/driver-kit';
import { offlineDriverCases } from '@cumem/testing/vitest';
import { describe, expect, it } from 'vitest';
import { parameterTypes } from './entry-point-binder.js';
import { createDriver } from './index.js';
import { loadKoffi } from './koffi-module.js';
import { packLocation } from './location-argument.js';

describe('createDriver without a driver library', () => {
  it('imports and constructs without touching libcuda', () => {
    const driver = createDriver({ libraryPath: '/nonexistent/libcuda.so.1' });
    expect(driver.name).toBe('ffi');
    expect(driver.contractVersion).toBe(DRIVER_CONTRACT_VERSION);
  });

  it('throws DriverUnavailableError(library-missing) with what was tried and how to fix it, every time', () => {
    const driver = createDriver({ libraryPath: '/nonexistent/libcuda.so.1' });
    for (let attempt = 0; attempt < 2; attempt++) {
      let caught: unknown;
      try {
        driver.deviceGetCount();
      } catch (error) {
        caught = error;
      }
      expect(DriverUnavailableError.isInstance(caught)).toBe(true);
      const error = caught as DriverUnavailableError;
      expect(error.reason).toBe('library-missing');
      expect(error.message).toContain('/nonexistent/libcuda.so.1');
      expect(error.message).toContain('Install the NVIDIA GPU driver');
      expect(error.message).toContain('LD_LIBRARY_PATH');
    }
    expect(() => driver.driverVersion).toThrow(DriverUnavailableError);
    expect(() => driver.capabilities).toThrow(/The CUDA driver library '.*' could not be loaded/);
  });

  it('rejects the async waits with the same error instead of throwing', async () => {
    const driver = createDriver({ libraryPath: '/nonexistent/libcuda.so.1' });
    await expect(driver.streamSynchronizeAsync(0n)).rejects.toThrow(DriverUnavailableError);
    await expect(driver.eventSynchronizeAsync(1n)).rejects.toThrow(DriverUnavailableError);
  });

  it('names the default library when no path is given and it cannot be loaded', () => {
    const driver = createDriver({ libraryPath: 'libcuda-that-does-not-exist.so.1' });
    expect(() => driver.contextGetDevice()).toThrow(/libcuda-that-does-not-exist\.so\.1/);
  });
});

describe('addressOf and hostView (JS memory, no driver)', () => {
  const driver = createDriver({ libraryPath: '/nonexistent/libcuda.so.1' });

  it('writes through hostView(addressOf(x)) land in x', () => {
    const x = new Uint32Array(8);
    const view = driver.hostView(driver.addressOf(x), x.byteLength);
    new DataView(view.buffer, view.byteOffset).setUint32(4, 0xdeadbeef, true);
    expect(x[1]).toBe(0xdeadbeef);
    x[2] = 77;
    expect(view[8]).toBe(77);
  });

  it('counts the byte offset of a view into a larger buffer', () => {
    const buffer = new ArrayBuffer(64);
    const bytes = new Uint8Array(buffer, 24, 8);
    expect(driver.addressOf(bytes) - driver.addressOf(buffer)).toBe(24n);
    const dataView = new DataView(buffer, 40);
    expect(driver.addressOf(dataView) - driver.addressOf(buffer)).toBe(40n);
    driver.hostView(driver.addressOf(dataView), 1)[0] = 9;
    expect(new Uint8Array(buffer)[40]).toBe(9);
  });

  it('keeps the address of a small typed array stable across garbage collection', () => {
    const small = new Uint8Array(4);
    const before = driver.addressOf(small);
    for (let i = 0; i < 50; i++) new Array(10000).fill(i);
    (globalThis as { gc?: () => void }).gc?.();
    expect(driver.addressOf(small)).toBe(before);
    driver.hostView(before, 4)[3] = 5;
    expect(small[3]).toBe(5);
  });

  it('gives an empty view for size 0 and refuses the null pointer', () => {
    expect(driver.hostView(0n, 0).byteLength).toBe(0);
    expect(() => driver.hostView(0n, 8)).toThrow(RangeError);
  });

  it('refuses what is not memory', () => {
    expect(() => driver.addressOf({} as ArrayBuffer)).toThrow(TypeError);
  });

  it('detachView answers false (koffi views cannot be detached) and the view keeps working', () => {
    const x = new Uint8Array(16).fill(3);
    const view = driver.hostView(driver.addressOf(x), 16);
    expect(driver.detachView(view.buffer as ArrayBuffer)).toBe(false);
    expect(view.byteLength).toBe(16);
    view[5] = 9;
    expect(x[5]).toBe(9);
    expect(() => driver.detachView(view as never)).toThrow(TypeError);
  });
});

offlineDriverCases('ffi', createDriver);

describe("driver-kit's entry-point table, as the FFI adapter binds it", () => {
  it('gives every parameter kind a koffi type', () => {
    const koffi = loadKoffi();
    const types = parameterTypes(koffi);
    const rows: readonly EntryPointRow[] = Object.values(entryPointTable);
    for (const row of rows) {
      for (const [kind] of row.parameters) {
        expect(types[kind], `${row.symbol}: ${kind}`).toBeDefined();
        expect(koffi.sizeof(types[kind])).toBeGreaterThan(0);
      }
    }
  });
});

describe('packLocation', () => {
  it('puts the type in the low and the id in the high 32 bits', () => {
    expect(packLocation(1, 0)).toBe(1);
    expect(packLocation(3, 5)).toBe(5 * 2 ** 32 + 3);
    expect(packLocation(1, -1)).toBe(0xffffffff00000001n);
    expect(packLocation(3, 2 ** 30)).toBe(((2n ** 30n) << 32n) | 3n);
  });
});
