// The page-locked resources that the packages above allocate host memory from (interop-arrow's
// HostBuffer, newHostArray), one of each kind per driver runtime: resources bind the driver
// current when they are made, so a driver switched to with useDriver gets its own, and a
// dropped runtime takes its resources with it.
import { activeRuntime } from '../runtime/driver-runtime.js';
import { perRuntimeState } from '../runtime/per-runtime-state.js';
import { LegacyPinnedMemoryResource } from './legacy-pinned-memory-resource.js';
import { PinnedMemoryResource } from './pinned-memory-resource.js';

const sharedOf = perRuntimeState(
  (): { legacy?: LegacyPinnedMemoryResource; pool?: PinnedMemoryResource } => ({}),
);

/**
 * The current driver's shared page-locked resource: `'pool'` a stream-ordered pinned pool
 * where the driver has host pools (`capabilities.hostMemoryPools`), else (and for `'legacy'`)
 * `cuMemHostAlloc` memory.
 */
export function sharedHostResource(
  allocator: 'legacy' | 'pool',
): LegacyPinnedMemoryResource | PinnedMemoryResource {
  const runtime = activeRuntime();
  const shared = sharedOf(runtime);
  if (allocator === 'pool' && runtime.capabilities.hostMemoryPools) {
    shared.pool ??= new PinnedMemoryResource();
    return shared.pool;
  }
  shared.legacy ??= new LegacyPinnedMemoryResource();
  return shared.legacy;
}
