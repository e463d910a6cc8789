// The programmatic twin of `cumem info`'s memory section: statistics of every built-in
// resource that counts, the current resources, what out-of-memory recovery did, and the
// buffers the finalizer had to free.

import type { MemoryResource } from '../buffer/memory-resource.js';
import { currentResources } from '../resources/current-resource.js';
import { type OutOfMemoryStatistics, outOfMemoryStatistics } from './out-of-memory.js';
import { censusEntries, type ResourceStatistics } from './resource-accounting.js';
import { finalizerReleases } from './resource-pressure.js';

/** One resource in {@link memoryReport}. */
export interface ResourceReport {
  readonly resource: MemoryResource;
  /** Its class name, e.g. `'DeviceMemoryResource'`. */
  readonly kind: string;
  readonly deviceId: number;
  /** The devices whose current resource it is. */
  readonly currentFor: readonly number[];
  readonly statistics: ResourceStatistics;
  readonly limit: number | null;
}

/** What {@link memoryReport} returns. */
export interface MemoryReport {
  /** Open built-in resources that count statistics, and the current resources. */
  readonly resources: readonly ResourceReport[];
  readonly outOfMemory: OutOfMemoryStatistics;
  /** Buffers freed by the finalizer (or recovery) because they were dropped without close(). */
  readonly finalizerReleases: { readonly count: number; readonly bytes: number };
}

/** A snapshot of memory-pressure state for printing (`cumem info`) or monitoring. */
export function memoryReport(): MemoryReport {
  const current = new Map<MemoryResource, number[]>();
  for (const [device, resource] of currentResources()) {
    if (resource.isClosed) continue;
    current.set(resource, [...(current.get(resource) ?? []), device]);
  }
  const listed = new Set<MemoryResource>();
  for (const entry of censusEntries()) {
    if (entry.accounting !== null) listed.add(entry.resource as MemoryResource);
  }
  for (const resource of current.keys()) listed.add(resource);
  const resources = [...listed].map((resource) => ({
    resource,
    kind: resource.constructor.name,
    deviceId: resource.deviceId,
    currentFor: current.get(resource) ?? [],
    statistics: resource.statistics(),
    limit: resource.limit,
  }));
  return { resources, outOfMemory: outOfMemoryStatistics(), finalizerReleases: finalizerReleases() };
}
