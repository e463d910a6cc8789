// A pool allocation that failed: out-of-memory recovery (out-of-memory.ts) with what pools add,
// synchronizing the devices frees were queued on (so the memory of dropped buffers is back in
// its pool) and trimming every pool of the device to nothing (pools keep their reserve, see
// keepAllReleaseThreshold, so another pool's reserve is often what this one lacks).

import { CudaStateError } from '@cumem/core-types';
import { type LiveAllocations, liveAllocationsOf } from '../../buffer/live-allocations.js';
import { limitError, recoverAllocation } from '../../diagnostics/out-of-memory.js';
import { censusEntries } from '../../diagnostics/resource-accounting.js';
import type { Stream } from '../../stream/stream.js';
import type { PoolMemoryResource } from './pool-memory-resource.js';
import { allDevices } from './pool-teardown.js';

const call = 'cuMemAllocFromPoolAsync';

/**
 * @internal Recovers `resource.allocate(size)` after `error` (null: over the resource's limit).
 * @returns the pointer of a successful retry.
 * @throws the out-of-memory CudaError when recovery does not help, or any other error.
 */
export function recoverPoolAllocation(
  resource: PoolMemoryResource,
  error: unknown,
  size: number,
  stream: Stream,
): bigint {
  // Every PoolMemoryResource has its live pointers (made in its field initializer).
  const live = liveAllocationsOf(resource) as LiveAllocations;
  const runtime = resource.runtime;
  const attempt = () => {
    const accounting = live.accounting;
    // An out-of-memory hook may have closed the stream: its handle is destroyed then.
    if (stream.isClosed) throw CudaStateError.closed('Stream');
    if (accounting !== null && !accounting.fits(size)) throw limitError(resource, accounting, size, call);
    runtime.makeCurrent(stream.ordinal);
    return runtime.driver.memAllocFromPoolAsync(size, resource.pool, stream.streamHandle);
  };
  const first = error ?? limitError(resource, live.accounting ?? live.account(), size, call);
  return recoverAllocation(resource, live.accounting, first, size, attempt, () =>
    relievePools(resource, stream),
  );
}

function relievePools(resource: PoolMemoryResource, stream: Stream): void {
  const runtime = resource.runtime;
  const queued = resource.queuedFreeDevices;
  for (let device = 0; device < runtime.deviceCount; device++) {
    const freed = queued === allDevices || (device < 31 && (queued & (1 << device)) !== 0);
    if (!freed && device !== stream.ordinal && device !== resource.ordinal) continue;
    runtime.makeCurrent(device);
    runtime.driver.contextSynchronize();
  }
  for (const entry of censusEntries()) {
    const other = entry.resource as Partial<PoolMemoryResource>;
    if (typeof other.trimReserve !== 'function' || other.ordinal !== resource.ordinal) continue;
    try {
      other.trimReserve();
    } catch {
      // A pool that cannot be trimmed (destroyed under us, an old driver) only helps less.
    }
  }
  runtime.makeCurrent(stream.ordinal);
}
