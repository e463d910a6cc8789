import {
  CU_DEVICE_CPU,
  CU_DEVICE_INVALID,
  MemAdvise,
  MemLocationType,
  MemRangeAttribute,
} from '@cumem/core-types';

/**
 * The driver applies advice to whole CPU pages: it rounds the range start down and the end up
 * to this size (cuMemAdvise in cuda.h). Prefetch state is kept at the same granularity.
 */
export const managedPageSize = 4096;

/** A location as the reference driver stores it: HostNumaCurrent already resolved to a node. */
export interface StoredLocation {
  readonly type: number;
  readonly id: number;
}

/** Per-page advice and prefetch record of one managed allocation. */
export class ManagedState {
  private readonly readMostly: Uint8Array;
  private readonly preferredType: Uint8Array;
  private readonly preferredId: Int32Array;
  private readonly prefetchType: Uint8Array;
  private readonly prefetchId: Int32Array;
  // Bit 0: the host; bit d + 1: device d.
  private readonly accessedByMask: Uint32Array;

  constructor(size: number) {
    const pages = Math.ceil(size / managedPageSize);
    this.readMostly = new Uint8Array(pages);
    this.preferredType = new Uint8Array(pages);
    this.preferredId = new Int32Array(pages);
    this.prefetchType = new Uint8Array(pages);
    this.prefetchId = new Int32Array(pages);
    this.accessedByMask = new Uint32Array(pages);
  }

  /** Applies `advice` (already validated) to the pages covering `offset .. offset + size`. */
  advise(offset: number, size: number, advice: number, location: StoredLocation): void {
    const [first, end] = pages(offset, size);
    switch (advice) {
      case MemAdvise.SetReadMostly:
      case MemAdvise.UnsetReadMostly:
        this.readMostly.fill(advice === MemAdvise.SetReadMostly ? 1 : 0, first, end);
        break;
      case MemAdvise.SetPreferredLocation:
        this.preferredType.fill(location.type, first, end);
        this.preferredId.fill(location.id, first, end);
        break;
      case MemAdvise.UnsetPreferredLocation:
        this.preferredType.fill(MemLocationType.Invalid, first, end);
        break;
      default: {
        const bit = location.type === MemLocationType.Device ? 1 << (location.id + 1) : 1;
        for (let page = first; page < end; page++) {
          const mask = this.accessedByMask[page] as number;
          this.accessedByMask[page] = advice === MemAdvise.SetAccessedBy ? mask | bit : mask & ~bit;
        }
      }
    }
  }

  /** Records an explicit prefetch of the pages covering the range to `location`. */
  prefetch(offset: number, size: number, location: StoredLocation): void {
    const [first, end] = pages(offset, size);
    this.prefetchType.fill(location.type, first, end);
    this.prefetchId.fill(location.id, first, end);
  }

  /** `cuMemRangeGetAttribute` for the 4-byte attributes; undefined for an unknown attribute. */
  rangeAttribute(offset: number, size: number, attribute: number): number | undefined {
    const [first, end] = pages(offset, size);
    switch (attribute) {
      case MemRangeAttribute.ReadMostly:
        return this.readMostly.subarray(first, end).every((value) => value === 1) ? 1 : 0;
      case MemRangeAttribute.PreferredLocation:
        return legacyId(uniform(this.preferredType, this.preferredId, first, end));
      case MemRangeAttribute.PreferredLocationType:
        return uniform(this.preferredType, this.preferredId, first, end)?.type ?? MemLocationType.Invalid;
      case MemRangeAttribute.PreferredLocationId:
        return locationId(uniform(this.preferredType, this.preferredId, first, end));
      case MemRangeAttribute.LastPrefetchLocation:
        return legacyId(uniform(this.prefetchType, this.prefetchId, first, end));
      case MemRangeAttribute.LastPrefetchLocationType:
        return uniform(this.prefetchType, this.prefetchId, first, end)?.type ?? MemLocationType.Invalid;
      case MemRangeAttribute.LastPrefetchLocationId:
        return locationId(uniform(this.prefetchType, this.prefetchId, first, end));
      default:
        return undefined;
    }
  }

  /** Devices (CU_DEVICE_CPU for the host) advised as accessors of every page of the range, ascending. */
  accessedBy(offset: number, size: number): number[] {
    const [first, end] = pages(offset, size);
    let mask = 0xffff_ffff;
    for (let page = first; page < end; page++) mask &= this.accessedByMask[page] as number;
    const result: number[] = [];
    for (let bit = 0; bit < 32; bit++) {
      if (mask & (1 << bit)) result.push(bit === 0 ? CU_DEVICE_CPU : bit - 1);
    }
    return result;
  }
}

function pages(offset: number, size: number): [number, number] {
  return [Math.floor(offset / managedPageSize), Math.ceil((offset + size) / managedPageSize)];
}

function uniform(types: Uint8Array, ids: Int32Array, first: number, end: number): StoredLocation | undefined {
  const type = types[first];
  const id = ids[first];
  if (type === undefined || id === undefined || type === MemLocationType.Invalid) return undefined;
  for (let page = first + 1; page < end; page++) {
    if (types[page] !== type || ids[page] !== id) return undefined;
  }
  return { type, id };
}

// The pre-12.2 attributes name a device ordinal, or CU_DEVICE_CPU for any host location.
function legacyId(location: StoredLocation | undefined): number {
  if (!location) return CU_DEVICE_INVALID;
  return location.type === MemLocationType.Device ? location.id : CU_DEVICE_CPU;
}

// cuda.h: the id is meaningful for Device and HostNuma only and "should be ignored" otherwise.
function locationId(location: StoredLocation | undefined): number {
  if (location?.type === MemLocationType.Device || location?.type === MemLocationType.HostNuma)
    return location.id;
  return CU_DEVICE_INVALID;
}
