import { Device } from '@cumem/core-types';
import { countingDriver, createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { defaultStream, Stream } from '../stream/stream.js';
import {
  deviceCount,
  deviceProperties,
  makeDeviceCurrent,
  memoryInfo,
  setCurrentDevice,
} from './device-queries.js';
import { useDriver } from './driver-selection.js';

describeEachDriver(adapters, 'devices', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('counts devices', () => {
    expect(deviceCount()).toBe(entry.driver.deviceGetCount());
    expect(deviceCount()).toBeGreaterThanOrEqual(1);
  });

  it('reports the properties of a device, cached', () => {
    const properties = deviceProperties(0);
    expect(properties).toBe(deviceProperties(new Device(0)));
    expect(typeof properties.name).toBe('string');
    expect(properties.name.length).toBeGreaterThan(0);
    expect(properties.computeCapability).toHaveLength(2);
    expect(properties.computeCapability[0]).toBeGreaterThanOrEqual(5);
    expect(properties.totalMemory).toBe(entry.driver.deviceTotalMem(0));
    expect(properties.multiProcessorCount).toBeGreaterThan(0);
    expect(typeof properties.concurrentManagedAccess).toBe('boolean');
    expect(typeof properties.pageableMemoryAccess).toBe('boolean');
    expect(Number.isInteger(properties.hostNumaId)).toBe(true);
    expect(properties.uuid).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(properties.memoryPoolsSupported).toBe(true);
    expect(properties.managedMemory).toBe(true);
    expect(properties.unifiedAddressing).toBe(true);
    expect(Object.isFrozen(properties)).toBe(true);
  });

  it('reports free and total memory, and free memory falls while a buffer is held', () => {
    const before = memoryInfo(0);
    expect(before.total).toBe(deviceProperties(0).totalMemory);
    expect(before.free).toBeGreaterThan(0);
    expect(before.free).toBeLessThanOrEqual(before.total);
    const pool = new DeviceMemoryResource(0, { releaseThreshold: 0 });
    const big = pool.allocate(64 * 1024 * 1024);
    expect(memoryInfo(new Device(0)).free).toBeLessThanOrEqual(before.free - 64 * 1024 * 1024);
    big.close();
    pool.close();
    expect(memoryInfo().total).toBe(before.total);
  });

  it('sets the current device', () => {
    setCurrentDevice(0);
    expect(Stream.create().device).toBe(new Device(0));
    expect(defaultStream().device).toBe(new Device(0));
  });

  it('refuses devices that do not exist, or are not devices', () => {
    const count = deviceCount();
    expect(() => deviceProperties(count)).toThrow(RangeError);
    expect(() => memoryInfo(count)).toThrow(RangeError);
    expect(() => setCurrentDevice(count)).toThrow(RangeError);
    expect(() => deviceProperties('0' as never)).toThrow(TypeError);
    expect(() => setCurrentDevice(-1)).toThrow(RangeError);
    expect(() => setCurrentDevice(undefined as never)).toThrow(TypeError);
    expect(() => makeDeviceCurrent(count)).toThrow(RangeError);
    expect(() => makeDeviceCurrent(-1)).toThrow(RangeError);
    expect(() => makeDeviceCurrent(undefined as never)).toThrow(TypeError);
    expect(() => makeDeviceCurrent('0' as never)).toThrow(TypeError);
  });

  it('makes a device current without changing the default device', () => {
    setCurrentDevice(0);
    makeDeviceCurrent(new Device(0));
    expect(entry.driver.contextGetDevice()).toBe(0);
  });
});

describe('devices on a two-device reference driver', () => {
  it('switches the current context only when the device changes', () => {
    const { driver, log } = countingDriver(createReferenceDriver({ deviceCount: 2 }));
    useDriver(driver);
    expect(deviceCount()).toBe(2);
    setCurrentDevice(1);
    const one = Stream.create();
    expect(one.device).toBe(new Device(1));
    const zero = Stream.create(0);
    log.reset();
    memoryInfo(0);
    memoryInfo(0);
    expect(log.calls.filter((call) => call === 'contextSetCurrent')).toEqual([]);
    memoryInfo(1);
    memoryInfo(1);
    expect(log.calls.filter((call) => call === 'contextSetCurrent')).toHaveLength(1);
    expect(log.calls.filter((call) => call === 'primaryContextRetain')).toEqual([]);
    expect(deviceProperties(1).uuid).not.toBe(deviceProperties(0).uuid);
    one.close();
    zero.close();
    setCurrentDevice(0);
  });
});

describe('setCurrentDevice after native code changed the context', () => {
  it('binds the context again even when cumem believes it is current', () => {
    const reference = createReferenceDriver({ deviceCount: 2 });
    useDriver(reference);
    setCurrentDevice(0);
    // Another library switches the thread to device 1 behind cumem's back.
    reference.contextSetCurrent(reference.primaryContextRetain(1));
    expect(reference.contextGetDevice()).toBe(1);
    setCurrentDevice(0);
    expect(reference.contextGetDevice()).toBe(0);
    reference.primaryContextRelease(1);
  });
});

describe('makeDeviceCurrent on a two-device reference driver', () => {
  it("binds the device's primary context and leaves the default device alone", () => {
    const { driver, log } = countingDriver(createReferenceDriver({ deviceCount: 2 }));
    useDriver(driver);
    try {
      setCurrentDevice(0);
      expect(defaultStream().device).toBe(new Device(0));
      log.reset();
      makeDeviceCurrent(1);
      makeDeviceCurrent(new Device(1));
      // Once bound, a second call costs no driver call.
      expect(log.calls.filter((call) => call === 'contextSetCurrent')).toHaveLength(1);
      expect(driver.contextGetDevice()).toBe(1);
      expect(defaultStream().device).toBe(new Device(0));
      log.reset();
      expect(() => makeDeviceCurrent(2)).toThrow(RangeError);
      expect(() => makeDeviceCurrent(1.5)).toThrow(RangeError);
      expect(log.calls).toEqual([]);
      makeDeviceCurrent(0);
      expect(driver.contextGetDevice()).toBe(0);
    } finally {
      setCurrentDevice(0);
    }
  });
});
