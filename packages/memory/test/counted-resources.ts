// The setup of the copy-engine tests: the driver behind a counting wrapper, made current, with a
// device pool and page-locked host memory to copy between.
import type { Driver } from '@cumem/core-types';
import { countingDriver, type DriverCallLog } from '@cumem/testing/vitest';
import { DeviceMemoryResource } from '../src/resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../src/resources/legacy-pinned-memory-resource.js';
import { useDriver } from '../src/runtime/driver-selection.js';

export interface CountedResources {
  readonly log: DriverCallLog;
  readonly device: DeviceMemoryResource;
  readonly pinned: LegacyPinnedMemoryResource;
}

/** Uses `driver` through countingDriver and makes a device and a page-locked resource on it. */
export function countedResources(driver: Driver): CountedResources {
  const counted = countingDriver(driver);
  useDriver(counted.driver);
  return { log: counted.log, device: new DeviceMemoryResource(0), pinned: new LegacyPinnedMemoryResource() };
}
