// Shared by the test files only (not exported from the package).
import type { Driver } from '@cumem/core-types';
import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';

// The adapters every test file of this package runs against (besides the reference driver).
export { adapters } from '@cumem/test-support';

/** What a launching test runs on: device 0's current pool and a stream of its own there (the caller closes it). */
export interface DeviceZero {
  readonly pool: DeviceMemoryResource;
  readonly stream: Stream;
}

/** Puts `driver` in use and opens {@link DeviceZero} on it (in a `beforeAll`). */
export function useDeviceZero(driver: Driver): DeviceZero {
  useDriver(driver);
  return { pool: new DeviceMemoryResource(0), stream: Stream.create(0) };
}
