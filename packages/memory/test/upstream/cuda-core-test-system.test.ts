/**
 * cuda.core's first `system` tests (the driver version and the devices, before `system` moved to
 * NVML), translated onto what `@cumem/memory` answers: `deviceCount()`, `new Device(ordinal)` and
 * the driver's `driverVersion`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_system.py`, as read at commit
 * 01db773955806205e65e0553c8d22192419cc440. Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here: `system.driver_version` (a `(major, minor)` tuple of
 * `cuDriverGetVersion`) -> `currentDriver().driverVersion` (the raw number, 13000 = 13.0, as the
 * core-types README says); `system.num_devices` -> `deviceCount()`; `system.devices` -> the
 * interned `new Device(i)` for each ordinal below the count. The expected values come from the
 * driver in use (`cuDeviceGetCount` where upstream asks the runtime).
 *
 * Not ported:
 * - test_system_singleton: cumem has no `system` object (its queries are module functions).
 */
import { currentDriver, Device, deviceCount, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';

describeEachDriver(adapters, 'cuda.core test_system.py', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('test_driver_version: the driver in use reports its cuDriverGetVersion number (major * 1000 + minor * 10)', () => {
    const version = currentDriver().driverVersion;
    expect(version).toBe(entry.driver.driverVersion);
    expect(Number.isInteger(version)).toBe(true);
    const [major, minor] = [Math.floor(version / 1000), Math.floor((version % 1000) / 10)];
    // cumem needs CUDA 12 or newer (core-types README); the minor is a digit pair below 100.
    expect(major).toBeGreaterThanOrEqual(12);
    expect(minor).toBeGreaterThanOrEqual(0);
    expect(minor).toBeLessThan(100);
  });

  it('test_num_devices: deviceCount() is what cuDeviceGetCount says, at least one', () => {
    expect(deviceCount()).toBe(entry.driver.deviceGetCount());
    expect(deviceCount()).toBeGreaterThanOrEqual(1);
  });

  it('test_devices: one interned Device per ordinal below deviceCount()', () => {
    const devices = Array.from({ length: deviceCount() }, (_, ordinal) => new Device(ordinal));
    expect(devices.map((device) => device.ordinal)).toEqual([...devices.keys()]);
    for (const device of devices) expect(new Device(device.ordinal)).toBe(device);
  });
});
