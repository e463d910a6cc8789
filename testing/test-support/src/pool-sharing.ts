import type { Driver } from '@cumem/core-types';

/**
 * `describeEachDriver` options of a block that shares pools between processes: GPU drivers
 * only, and skipped as not applicable where the driver has no CUDA IPC.
 */
export const poolSharingDrivers = {
  gpuOnly: true,
  requires: (driver: Driver): string | undefined =>
    driver.capabilities.interprocess
      ? undefined
      : 'not applicable: the driver cannot share pools between processes',
};
