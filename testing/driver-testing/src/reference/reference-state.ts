import {
  type DriverCapabilities,
  MemAccessFlags,
  MemAllocationType,
  type MemLocation,
  MemLocationType,
  type MemPoolProperties,
} from '@cumem/core-types';
import {
  checkLocationSupported,
  checkPoolKindSupported,
  type DriverFacts,
  unsupported,
} from '@cumem/driver-kit';
import {
  AddressSpace,
  type Allocation,
  type AllocationKind,
  type AllocationOrigin,
} from './address-space.js';
import { cudaError } from './cuda-errors.js';
import { referenceHostNumaId } from './device-table.js';
import { JsMemoryAddresses } from './js-memory.js';
import { ManagedState, managedPageSize, type StoredLocation } from './managed-state.js';
import { accessKey, PoolState } from './pool-state.js';
import { referenceFacts } from './reference-capabilities.js';
import type { EventRecord, ReferenceSettings, StreamRecord } from './reference-records.js';

/** `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`: handles of the current context's default streams. */
const defaultStreams = new Set([0n, 1n, 2n]);

/** Everything a reference driver holds, and the checks its entry points share. */
export class ReferenceState {
  readonly space = new AddressSpace();
  readonly js = new JsMemoryAddresses();
  readonly retainCounts: number[];
  readonly contexts: bigint[];
  readonly defaultPools: PoolState[];
  readonly pools = new Map<bigint, PoolState>();
  readonly streams = new Map<bigint, StreamRecord>();
  readonly events = new Map<bigint, EventRecord>();
  current = 0n;
  /** Bytes of `memAlloc` memory per device. */
  readonly deviceBytes: number[];
  /** Bytes of page-locked host and managed memory, limited to twice the device memory. */
  private hostBytes = 0;
  private nextHandle = 0x55d4_c000_0000n;

  /** What the reference driver can do, and what its refusals say about it (driver-kit's rules). */
  readonly capabilities: DriverCapabilities;
  private readonly facts: DriverFacts;

  constructor(readonly settings: ReferenceSettings) {
    this.facts = referenceFacts(settings.legacy);
    this.capabilities = this.facts.capabilities;
    const ordinals = Array.from({ length: settings.deviceCount }, (_, ordinal) => ordinal);
    this.retainCounts = ordinals.map(() => 0);
    this.deviceBytes = ordinals.map(() => 0);
    this.contexts = ordinals.map(() => this.newHandle());
    this.defaultPools = ordinals.map((ordinal) => {
      const pool = new PoolState(
        this.newHandle(),
        {
          allocationType: MemAllocationType.Pinned,
          locationType: MemLocationType.Device,
          locationId: ordinal,
          handleTypes: 0,
          maxSize: 0,
          device: ordinal,
        },
        true,
      );
      this.pools.set(pool.handle, pool);
      return pool;
    });
  }

  /** A handle never handed out before; they look like heap pointers, as the driver's do. */
  newHandle(): bigint {
    this.nextHandle += 0x240n;
    return this.nextHandle;
  }

  checkDevice(ordinal: number, call: string): void {
    if ((ordinal | 0) !== ordinal) throw new RangeError(`${call}: device ordinal must be a 32-bit integer`);
    if (ordinal < 0 || ordinal >= this.settings.deviceCount)
      throw cudaError(call, 'CUDA_ERROR_INVALID_DEVICE');
  }

  /** The device of the current context; CUDA_ERROR_INVALID_CONTEXT when none is current or it was released. */
  requireContext(call: string): number {
    const device = this.contexts.indexOf(this.current);
    if (device < 0 || this.retainCounts[device] === 0) throw cudaError(call, 'CUDA_ERROR_INVALID_CONTEXT');
    return device;
  }

  /** Checks a stream handle; default-stream handles need a current context. Returns the stream's context. */
  checkStream(stream: bigint, call: string): bigint {
    if (defaultStreams.has(stream)) {
      this.requireContext(call);
      return this.current;
    }
    const record = this.streams.get(stream);
    if (!record) throw cudaError(call, 'CUDA_ERROR_INVALID_HANDLE');
    return record.context;
  }

  /** The ordinal of the device whose context `stream` belongs to (see {@link checkStream}). */
  streamDevice(stream: bigint, call: string): number {
    return this.contexts.indexOf(this.checkStream(stream, call));
  }

  /**
   * Refuses device work of `device` (its stream, or its current context) on memory it cannot
   * reach: pool memory of another device is reachable only once `cuMemPoolSetAccess` grants
   * that device access (the driver answers CUDA_ERROR_INVALID_VALUE, seen on a host with two GPUs).
   * `cuMemAlloc` memory of another device is always reachable (the driver stages it when
   * context peer access is off).
   */
  refuseUnreachable(device: number, call: string, ...pointers: bigint[]): void {
    for (const pointer of pointers) {
      const allocation = this.space.containing(pointer);
      const pool = allocation?.pool;
      if (!allocation || !pool || allocation.kind !== 'device' || allocation.device === device) continue;
      if (pool.getAccess(accessKey(MemLocationType.Device, device), false) === MemAccessFlags.None) {
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
      }
    }
  }

  /** Batch entry points refuse the legacy NULL stream (cuda.h: "Must not be legacy NULL stream"). */
  checkBatchStream(stream: bigint, call: string): bigint {
    if (stream === 0n || stream === 1n) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return this.checkStream(stream, call);
  }

  event(event: bigint, call: string): EventRecord {
    const record = this.events.get(event);
    if (!record) throw cudaError(call, 'CUDA_ERROR_INVALID_HANDLE');
    return record;
  }

  pool(pool: bigint, call: string): PoolState {
    const state = this.pools.get(pool);
    if (!state || state.destroyed) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return state;
  }

  /** Bytes of device `ordinal` in use: allocations plus what its pools reserve. */
  deviceUsed(ordinal: number): number {
    let used = this.deviceBytes[ordinal] as number;
    for (const pool of this.pools.values()) {
      if (pool.kind === 'device' && pool.description.device === ordinal) used += pool.reservedCurrent;
    }
    return used;
  }

  /** A synchronization point: pools give back reserved memory above their release threshold. */
  synchronized(): void {
    for (const pool of this.pools.values()) pool.releaseAboveThreshold();
  }

  /** Makes and registers an allocation; CUDA_ERROR_OUT_OF_MEMORY when it does not fit. */
  allocate(
    size: number,
    kind: AllocationKind,
    origin: AllocationOrigin,
    device: number,
    call: string,
    pool?: PoolState,
  ): Allocation {
    if (!Number.isSafeInteger(size) || size <= 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (pool) {
      const growth = pool.kind === 'device' ? size : 0;
      if (growth > 0 && this.deviceUsed(device) + growth > this.settings.totalMemory) {
        throw cudaError(call, 'CUDA_ERROR_OUT_OF_MEMORY');
      }
      pool.allocate(size);
    } else if (kind === 'device') {
      if (this.deviceUsed(device) + size > this.settings.totalMemory)
        throw cudaError(call, 'CUDA_ERROR_OUT_OF_MEMORY');
    } else if (this.hostBytes + size > 2 * this.settings.totalMemory) {
      throw cudaError(call, 'CUDA_ERROR_OUT_OF_MEMORY');
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(size);
    } catch {
      pool?.free(size);
      throw cudaError(call, 'CUDA_ERROR_OUT_OF_MEMORY');
    }
    // Managed memory is 2 MiB aligned like the driver's; page-locked host memory page aligned.
    const alignment = kind === 'managed' ? 2 * 1024 * 1024 : kind === 'host' ? 4096 : 512;
    const allocation: Allocation = {
      start: this.space.reserve(size, alignment),
      size,
      kind,
      origin,
      bytes,
      device,
      context: this.current,
      pool,
      managed: kind === 'managed' ? new ManagedState(size) : undefined,
    };
    this.space.add(allocation);
    if (pool) pool.live.add(allocation.start);
    else if (kind === 'device') this.deviceBytes[device] = (this.deviceBytes[device] as number) + size;
    else this.hostBytes += size;
    return allocation;
  }

  /** Frees an allocation and forgets its address for good. */
  release(allocation: Allocation): void {
    this.space.remove(allocation);
    const pool = allocation.pool;
    if (pool) {
      pool.free(allocation.size);
      pool.live.delete(allocation.start);
      if (pool.destroyed && pool.live.size === 0) this.pools.delete(pool.handle);
    } else if (allocation.kind === 'device') {
      this.deviceBytes[allocation.device] = (this.deviceBytes[allocation.device] as number) - allocation.size;
    } else {
      this.hostBytes -= allocation.size;
    }
  }

  /** The allocation that starts at `pointer`, or CUDA_ERROR_INVALID_VALUE. */
  allocationAt(pointer: bigint, call: string): Allocation {
    const allocation = this.space.at(pointer);
    if (!allocation) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return allocation;
  }

  /** The driver allocation holding all of `pointer .. pointer + size`, or CUDA_ERROR_INVALID_VALUE. */
  allocationSpan(pointer: bigint, size: number, call: string): { allocation: Allocation; offset: number } {
    const allocation = this.space.containing(pointer);
    if (!allocation) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const offset = Number(pointer - allocation.start);
    if (offset + size > allocation.size) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return { allocation, offset };
  }

  /** Bytes of driver memory only (memset targets, the device side of HtoD/DtoH). */
  driverBytes(pointer: bigint, size: number, call: string): Uint8Array {
    if (size === 0) return new Uint8Array(0);
    const { allocation, offset } = this.allocationSpan(pointer, size, call);
    return allocation.bytes.subarray(offset, offset + size);
  }

  /**
   * The device side of `cuMemcpyHtoD*` / `cuMemcpyDtoH*`: driver memory except host-pool memory,
   * which the CUDA 13.0 driver refuses there with CUDA_ERROR_INVALID_VALUE (seen with driver
   * 580.159) while `cuMemcpyAsync` takes it. Refusing it here lets CI catch a layer that
   * copies to or from a pinned pool with those entry points.
   */
  deviceSideBytes(pointer: bigint, size: number, call: string, device = -1): Uint8Array {
    if (size === 0) return new Uint8Array(0);
    if (device >= 0) this.refuseUnreachable(device, call, pointer);
    const { allocation, offset } = this.allocationSpan(pointer, size, call);
    if (allocation.origin === 'pool' && allocation.kind === 'host') {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    return allocation.bytes.subarray(offset, offset + size);
  }

  /** Bytes at a unified address: driver memory, or live JS memory from `addressOf` (pageable host memory). */
  unifiedBytes(pointer: bigint, size: number, call: string): Uint8Array {
    if (size === 0) return new Uint8Array(0);
    if (this.space.containing(pointer)) return this.driverBytes(pointer, size, call);
    const bytes = this.js.resolve(pointer, size);
    if (!bytes) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return bytes;
  }

  /** The managed allocation holding the range; advice and prefetch refuse anything else. */
  managedSpan(pointer: bigint, size: number, call: string): { allocation: Allocation; offset: number } {
    if (size === 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const span = this.allocationSpan(pointer, size, call);
    if (!span.allocation.managed) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return span;
  }

  /**
   * Checks a location for prefetch / preferred location and stores it as the driver reports it
   * later: HostNumaCurrent becomes the node the calling thread runs on.
   */
  storedLocation(location: MemLocation, call: string): StoredLocation {
    this.refuseNumaInLegacyMode(location, call);
    switch (location.type) {
      case MemLocationType.Device:
        this.checkDevice(location.id, call);
        return { type: MemLocationType.Device, id: location.id };
      case MemLocationType.Host:
        return { type: MemLocationType.Host, id: 0 };
      case MemLocationType.HostNuma:
        if (location.id !== referenceHostNumaId) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
        return { type: MemLocationType.HostNuma, id: referenceHostNumaId };
      case MemLocationType.HostNumaCurrent:
        return { type: MemLocationType.HostNuma, id: referenceHostNumaId };
      default:
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
  }

  // Refusals before any call, as the adapters make them: driver-kit's rules and messages (with
  // the legacy entry points only Device and Host locations, no host or managed pools, no batches).
  refuseNumaInLegacyMode(location: MemLocation, call: string): void {
    checkLocationSupported(this.facts, location, call);
  }
  refusePoolKind(properties: MemPoolProperties, call: string): void {
    checkPoolKindSupported(this.facts, properties, call);
  }
  refuseBatchInLegacyMode(
    call: string,
    flag: 'batchMemcpy' | 'batchPrefetchDiscard' | 'memoryPoolQueries',
  ): void {
    if (!this.capabilities[flag]) throw unsupported(this.facts, call, flag);
  }

  /** Releasing a primary context to zero destroys it: its memory, streams and events go with it. */
  destroyContext(device: number): void {
    const context = this.contexts[device] as bigint;
    for (const allocation of [...this.space.all()]) {
      if (allocation.context === context && allocation.origin !== 'pool') this.release(allocation);
    }
    for (const [handle, stream] of this.streams) if (stream.context === context) this.streams.delete(handle);
    for (const [handle, event] of this.events) if (event.context === context) this.events.delete(handle);
  }
}

export { managedPageSize };
