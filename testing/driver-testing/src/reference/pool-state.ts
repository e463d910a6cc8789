import { MemAccessFlags, MemAllocationType, MemLocationType, MemPoolAttribute } from '@cumem/core-types';
import type { AllocationKind } from './address-space.js';
import { cudaError } from './cuda-errors.js';

/**
 * Pools reserve memory from the system in chunks; 2 MiB is the granularity a device pool of a
 * real driver reports in ReservedMemCurrent for small allocations.
 */
export const poolGranularity = 2 * 1024 * 1024;

function roundUp(bytes: number): number {
  return Math.ceil(bytes / poolGranularity) * poolGranularity;
}

/** The normalized properties a pool was made with. */
export interface PoolDescription {
  readonly allocationType: number;
  readonly locationType: number;
  readonly locationId: number;
  readonly handleTypes: number;
  readonly maxSize: number;
  /** Device whose memory backs the pool, or -1 for host and managed pools. */
  readonly device: number;
}

/** One stream-ordered memory pool of the reference driver. */
export class PoolState {
  destroyed = false;
  releaseThreshold = 0;
  reservedCurrent = 0;
  reservedHigh = 0;
  usedCurrent = 0;
  usedHigh = 0;
  /** Allocations not yet freed, by start address. */
  readonly live = new Set<bigint>();
  private readonly reuse = new Map<number, number>([
    [MemPoolAttribute.ReuseFollowEventDependencies, 1],
    [MemPoolAttribute.ReuseAllowOpportunistic, 1],
    [MemPoolAttribute.ReuseAllowInternalDependencies, 1],
  ]);
  private readonly access = new Map<string, number>();

  constructor(
    readonly handle: bigint,
    readonly description: PoolDescription,
    readonly isDefault: boolean,
  ) {}

  /** What kind of memory the pool hands out. */
  get kind(): AllocationKind {
    if (this.description.allocationType === MemAllocationType.Managed) return 'managed';
    return this.description.locationType === MemLocationType.Device ? 'device' : 'host';
  }

  /** Accounts `size` more bytes in use; returns how many bytes the reservation grew. */
  allocate(size: number): number {
    const used = this.usedCurrent + size;
    const { maxSize } = this.description;
    if (maxSize > 0 && used > maxSize) throw cudaError('cuMemAllocFromPoolAsync', 'CUDA_ERROR_OUT_OF_MEMORY');
    // A pool smaller than one chunk still serves allocations that fit it (cuda.core's tests
    // allocate from a 2 KiB pool): its reservation stops at its maximum size.
    const chunked = roundUp(used);
    const reserved = Math.max(this.reservedCurrent, maxSize > 0 ? Math.min(chunked, maxSize) : chunked);
    const growth = reserved - this.reservedCurrent;
    this.usedCurrent = used;
    this.usedHigh = Math.max(this.usedHigh, used);
    this.reservedCurrent = reserved;
    this.reservedHigh = Math.max(this.reservedHigh, reserved);
    return growth;
  }

  /** Accounts `size` bytes returned to the pool; the reservation stays until a sync or trim. */
  free(size: number): void {
    this.usedCurrent -= size;
  }

  /** `cuMemPoolTrimTo`: gives back unused chunks while more than `minBytesToKeep` are reserved. */
  trimTo(minBytesToKeep: number): void {
    if (this.reservedCurrent <= minBytesToKeep) return;
    const kept = Math.max(roundUp(this.usedCurrent), roundUp(minBytesToKeep));
    this.reservedCurrent = Math.min(this.reservedCurrent, kept);
  }

  /** What a synchronization does: release reserved memory above the release threshold. */
  releaseAboveThreshold(): void {
    if (this.reservedCurrent > this.releaseThreshold) this.trimTo(this.releaseThreshold);
  }

  getAttribute(attribute: number): number {
    switch (attribute) {
      case MemPoolAttribute.ReleaseThreshold:
        return this.releaseThreshold;
      case MemPoolAttribute.ReservedMemCurrent:
        return this.reservedCurrent;
      case MemPoolAttribute.ReservedMemHigh:
        return this.reservedHigh;
      case MemPoolAttribute.UsedMemCurrent:
        return this.usedCurrent;
      case MemPoolAttribute.UsedMemHigh:
        return this.usedHigh;
    }
    const reuse = this.reuse.get(attribute);
    if (reuse === undefined) throw cudaError('cuMemPoolGetAttribute', 'CUDA_ERROR_INVALID_VALUE');
    return reuse;
  }

  setAttribute(attribute: number, value: number): void {
    const call = 'cuMemPoolSetAttribute';
    if (!Number.isSafeInteger(value) || value < 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    switch (attribute) {
      case MemPoolAttribute.ReleaseThreshold:
        this.releaseThreshold = value;
        return;
      // The high-water marks can only be reset, which sets them to the current values.
      case MemPoolAttribute.ReservedMemHigh:
        if (value !== 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
        this.reservedHigh = this.reservedCurrent;
        return;
      case MemPoolAttribute.UsedMemHigh:
        if (value !== 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
        this.usedHigh = this.usedCurrent;
        return;
    }
    if (!this.reuse.has(attribute)) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    this.reuse.set(attribute, value === 0 ? 0 : 1);
  }

  /** The access `key` (a location, see {@link accessKey}) has; the owning device always has read-write. */
  getAccess(key: string, owner: boolean): number {
    if (owner) return MemAccessFlags.ReadWrite;
    return this.access.get(key) ?? MemAccessFlags.None;
  }

  setAccess(key: string, flags: number): void {
    this.access.set(key, flags);
  }
}

/** Map key for a location's access to a pool. */
export function accessKey(type: number, id: number): string {
  return `${type}:${id}`;
}
