// The page-locked resources that the packages above allocate host memory from (interop-arrow's
// HostBuffer, newHostArray), one of each kind per driver, kept in that driver's DriverRuntime:
// resources bind the driver current when they are made, so a driver switched to with useDriver
// gets its own, and no module-level map outside the runtime remembers drivers.
import { activeRuntime, runtimeState } from '../runtime/driver-runtime.js';
import { LegacyPinnedMemoryResource } from './legacy-pinned-memory-resource.js';
import { PinnedMemoryResource } from './pinned-memory-resource.js';

/**
 * The current driver's shared page-locked resource: `'pool'` a stream-ordered pinned pool
 * where the driver has host pools (`capabilities.hostMemoryPools`), else (and for `'legacy'`)
 * `cuMemHostAlloc` memory.
 */
export function sharedHostResource(
  allocator: 'legacy' | 'pool',
): LegacyPinnedMemoryResource | PinnedMemoryResource {
  const runtime = activeRuntime();
  const shared = runtimeState(runtime).hostResources;
  if (allocator === 'pool' && runtime.capabilities.hostMemoryPools) {
    shared.pool ??= new PinnedMemoryResource();
    return shared.pool as PinnedMemoryResource;
  }
  shared.legacy ??= new LegacyPinnedMemoryResource();
  return shared.legacy as LegacyPinnedMemoryResource;
}
