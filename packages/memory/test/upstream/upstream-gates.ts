// What the translated cuda.core cases of @cumem/memory need that a driver may lack, as the
// `requires` gate of describeEachDriver: a reason starting with 'not applicable:' is a skip that
// `pnpm test:gpu` counts as by design.
import { DeviceAttribute, type Driver } from '@cumem/core-types';

/** Stream-ordered memory pools on device 0 (cuda.core's fixtures allocate from them). */
export const needsPools = (driver: Driver): string | undefined =>
  driver.deviceGetAttribute(DeviceAttribute.MemoryPoolsSupported, 0) === 0
    ? 'not applicable: device 0 has no memory pools'
    : undefined;
