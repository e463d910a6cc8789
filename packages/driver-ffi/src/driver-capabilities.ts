// What the loaded driver can do, from its version and the symbols it exports; `legacy` pins the
// CUDA 12.0 forms so their fallbacks can be tested on a newer driver.

import type { DriverCapabilities } from '@cumem/core-types';
import type { Bindings } from './bindings.js';

/** Capabilities of a bound driver. */
export function driverCapabilities(
  bindings: Bindings,
  driverVersion: number,
  legacy: boolean,
): DriverCapabilities {
  const cuda13 = !legacy && driverVersion >= 13000;
  return Object.freeze({
    memoryLocations:
      !legacy && bindings.cuMemAdvise_v2 !== undefined && bindings.cuMemPrefetchAsync_v2 !== undefined,
    hostNumaLocations:
      cuda13 && bindings.cuMemAdvise_v2 !== undefined && bindings.cuMemPrefetchAsync_v2 !== undefined,
    batchPrefetchDiscard:
      cuda13 &&
      bindings.cuMemPrefetchBatchAsync !== undefined &&
      bindings.cuMemDiscardBatchAsync !== undefined &&
      bindings.cuMemDiscardAndPrefetchBatchAsync !== undefined,
    batchMemcpy:
      !legacy && (bindings.cuMemcpyBatchAsync_v2 !== undefined || bindings.cuMemcpyBatchAsync !== undefined),
    hostMemoryPools: cuda13,
    managedMemoryPools: cuda13,
    interprocess: process.platform === 'linux',
  });
}
