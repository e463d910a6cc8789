// Virtual memory management in the reference driver. A physical chunk keeps its bytes in its own
// array; the address space shows every maximal run of adjacent mappings of one reserved range
// as one allocation (so a copy may span chunks, as on a GPU), built from the chunks' bytes and
// written back into them before the run changes. A chunk mapped at two places at once shows the
// bytes it had when mapped the second time (writes do not propagate between the two copies).
import {
  type DevicePointer,
  type DriverHandle,
  type MemAccessDescriptor,
  MemAccessFlags,
  type MemAllocationProperties,
  MemAllocationType,
  type MemLocation,
  MemLocationType,
} from '@cumem/core-types';
import type { Allocation } from './address-space.js';
import { cudaError } from './cuda-errors.js';
import { ReferenceCompute } from './reference-compute.js';

/** The reference's granularity, minimum and recommended: 2 MiB, as compute capability 9.0 GPUs report. */
export const referenceGranularity = 2 * 1024 * 1024;

interface Chunk {
  readonly size: number;
  readonly device: number;
  readonly properties: MemAllocationProperties;
  readonly bytes: Uint8Array;
  mappings: number;
  released: boolean;
}

interface Mapping {
  readonly address: bigint;
  readonly size: number;
  readonly offset: number;
  readonly chunk: Chunk;
  /** Access per device ordinal (`MemAccessFlags`); none until memSetAccess. */
  readonly access: Map<number, number>;
}

interface Reservation {
  readonly start: bigint;
  readonly size: number;
  /** Sorted by address. */
  readonly mappings: Mapping[];
  /** The address-space runs now shown for the mappings. */
  runs: Allocation[];
}

const aligned = (value: number | bigint) => BigInt(value) % BigInt(referenceGranularity) === 0n;

/** The VMM members of the reference driver. */
export abstract class ReferenceVirtualMemory extends ReferenceCompute {
  private readonly chunks = new Map<bigint, Chunk>();
  private readonly reservations = new Map<bigint, Reservation>();

  memGetAllocationGranularity(properties: MemAllocationProperties, option: number): number {
    this.chunkDevice(properties, 'cuMemGetAllocationGranularity');
    if (option !== 0 && option !== 1)
      throw cudaError('cuMemGetAllocationGranularity', 'CUDA_ERROR_INVALID_VALUE');
    return referenceGranularity;
  }

  memAddressReserve(size: number, alignment: number, addressHint: DevicePointer): DevicePointer {
    const call = 'cuMemAddressReserve';
    if (!Number.isSafeInteger(size) || size <= 0 || !aligned(size) || !Number.isSafeInteger(alignment))
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (alignment < 0 || (alignment !== 0 && !aligned(alignment)))
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const taken = (start: bigint, end: bigint) =>
      [...this.reservations.values()].some((r) => start < r.start + BigInt(r.size) && r.start < end);
    const space = this.state.space;
    const start =
      addressHint !== 0n && aligned(addressHint) && space.reserveAt(addressHint, size, taken)
        ? addressHint
        : space.reserve(size, Math.max(alignment, referenceGranularity));
    this.reservations.set(start, { start, size, mappings: [], runs: [] });
    return start;
  }

  memAddressFree(pointer: DevicePointer, size: number): void {
    const reservation = this.reservations.get(pointer);
    // cuda.h: the whole range, with nothing mapped in it.
    if (!reservation || reservation.size !== size || reservation.mappings.length !== 0)
      throw cudaError('cuMemAddressFree', 'CUDA_ERROR_INVALID_VALUE');
    this.reservations.delete(pointer);
  }

  memCreate(size: number, properties: MemAllocationProperties): DriverHandle {
    const call = 'cuMemCreate';
    const device = this.chunkDevice(properties, call);
    if (!Number.isSafeInteger(size) || size <= 0 || !aligned(size))
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (properties.gpuDirectRdmaCapable) throw cudaError(call, 'CUDA_ERROR_NOT_SUPPORTED');
    const state = this.state;
    if (state.deviceUsed(device) + size > state.settings.totalMemory)
      throw cudaError(call, 'CUDA_ERROR_OUT_OF_MEMORY');
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(size);
    } catch {
      throw cudaError(call, 'CUDA_ERROR_OUT_OF_MEMORY');
    }
    state.deviceBytes[device] = (state.deviceBytes[device] as number) + size;
    const handle = state.newHandle();
    this.chunks.set(handle, {
      size,
      device,
      properties: { ...properties },
      bytes,
      mappings: 0,
      released: false,
    });
    return handle;
  }

  memRelease(handle: DriverHandle): void {
    const chunk = this.chunks.get(handle);
    if (!chunk || chunk.released) throw cudaError('cuMemRelease', 'CUDA_ERROR_INVALID_VALUE');
    chunk.released = true;
    this.chunks.delete(handle);
    // cuda.h: memory still mapped is freed at its last unmap.
    if (chunk.mappings === 0) this.freeChunk(chunk);
  }

  memMap(pointer: DevicePointer, size: number, offset: number, handle: DriverHandle): void {
    const call = 'cuMemMap';
    const chunk = this.chunks.get(handle);
    if (!chunk || !Number.isSafeInteger(size) || !Number.isSafeInteger(offset) || size <= 0 || offset < 0)
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (!aligned(size) || !aligned(offset) || offset + size > chunk.size)
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const reservation = this.reservationOf(pointer, size, call);
    const end = pointer + BigInt(size);
    if (reservation.mappings.some((m) => pointer < m.address + BigInt(m.size) && m.address < end))
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    // The chunk's bytes are what its other mappings show now.
    for (const r of this.reservations.values())
      if (r.mappings.some((m) => m.chunk === chunk)) this.writeBack(r);
    this.writeBack(reservation);
    const mapping: Mapping = { address: pointer, size, offset, chunk, access: new Map() };
    reservation.mappings.push(mapping);
    reservation.mappings.sort((a, b) => (a.address < b.address ? -1 : 1));
    chunk.mappings++;
    this.rebuildRuns(reservation);
  }

  memUnmap(pointer: DevicePointer, size: number): void {
    const call = 'cuMemUnmap';
    const reservation = this.reservationOf(pointer, size, call);
    const end = pointer + BigInt(size);
    const inside = reservation.mappings.filter(
      (m) => m.address >= pointer && m.address + BigInt(m.size) <= end,
    );
    const partial = reservation.mappings.some(
      (m) => pointer < m.address + BigInt(m.size) && m.address < end && !inside.includes(m),
    );
    // cuda.h: the range must cover whole mappings.
    if (inside.length === 0 || partial) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    this.writeBack(reservation);
    for (const mapping of inside) {
      reservation.mappings.splice(reservation.mappings.indexOf(mapping), 1);
      mapping.chunk.mappings--;
      if (mapping.chunk.released && mapping.chunk.mappings === 0) this.freeChunk(mapping.chunk);
    }
    this.rebuildRuns(reservation);
  }

  memSetAccess(pointer: DevicePointer, size: number, descriptors: readonly MemAccessDescriptor[]): void {
    const call = 'cuMemSetAccess';
    if (descriptors.length === 0) return;
    const covered = this.mappedCover(pointer, size, call);
    for (const { location, flags } of descriptors) {
      this.deviceOf(location, call);
      if (
        flags !== MemAccessFlags.None &&
        flags !== MemAccessFlags.Read &&
        flags !== MemAccessFlags.ReadWrite
      )
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    for (const mapping of covered) {
      for (const { location, flags } of descriptors) mapping.access.set(location.id, flags);
    }
  }

  memGetAccess(pointer: DevicePointer, location: MemLocation): number {
    const device = this.deviceOf(location, 'cuMemGetAccess');
    const [mapping] = this.mappedCover(pointer, 1, 'cuMemGetAccess');
    return mapping?.access.get(device) ?? MemAccessFlags.None;
  }

  memExportToFileDescriptor(_handle: DriverHandle): number {
    // The reference cannot share memory across processes (as a device without POSIX-fd handles).
    throw cudaError('cuMemExportToShareableHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }

  memImportFromFileDescriptor(_fd: number): DriverHandle {
    throw cudaError('cuMemImportFromShareableHandle', 'CUDA_ERROR_NOT_SUPPORTED');
  }

  memGetAllocationPropertiesFromHandle(handle: DriverHandle): MemAllocationProperties {
    const chunk = this.chunks.get(handle);
    if (!chunk) throw cudaError('cuMemGetAllocationPropertiesFromHandle', 'CUDA_ERROR_INVALID_VALUE');
    return { ...chunk.properties, location: { ...chunk.properties.location } };
  }

  private chunkDevice(properties: MemAllocationProperties, call: string): number {
    if (properties.allocationType !== MemAllocationType.Pinned)
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    // The reference models device-located chunks only; POSIX-fd export is refused at export.
    if ((properties.requestedHandleTypes & ~1) !== 0) throw cudaError(call, 'CUDA_ERROR_NOT_SUPPORTED');
    return this.deviceOf(properties.location, call);
  }

  private deviceOf(location: MemLocation, call: string): number {
    if (location.type !== MemLocationType.Device) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (!Number.isInteger(location.id) || location.id < 0 || location.id >= this.state.settings.deviceCount)
      throw cudaError(call, 'CUDA_ERROR_INVALID_DEVICE');
    return location.id;
  }

  private reservationOf(pointer: bigint, size: number, call: string): Reservation {
    if (!Number.isSafeInteger(size) || size <= 0 || !aligned(pointer))
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    for (const r of this.reservations.values()) {
      if (pointer >= r.start && pointer + BigInt(size) <= r.start + BigInt(r.size)) return r;
    }
    throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
  }

  /** The mappings covering all of `[pointer, pointer + size)`; INVALID_VALUE when a byte is unmapped. */
  private mappedCover(pointer: bigint, size: number, call: string): Mapping[] {
    if (!Number.isSafeInteger(size) || size <= 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const end = pointer + BigInt(size);
    for (const r of this.reservations.values()) {
      if (pointer < r.start || pointer >= r.start + BigInt(r.size)) continue;
      const covering = r.mappings.filter((m) => pointer < m.address + BigInt(m.size) && m.address < end);
      let reached = pointer;
      for (const m of covering) {
        if (m.address > reached) break;
        reached = m.address + BigInt(m.size);
      }
      if (reached < end) break;
      return covering;
    }
    throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
  }

  /** Copies what the runs show back into the chunks, before the mappings change. */
  private writeBack(reservation: Reservation): void {
    for (const run of reservation.runs) {
      for (const m of reservation.mappings) {
        const at = Number(m.address - run.start);
        if (at < 0 || at + m.size > run.size) continue;
        m.chunk.bytes.set(run.bytes.subarray(at, at + m.size), m.offset);
      }
    }
  }

  private rebuildRuns(reservation: Reservation): void {
    const space = this.state.space;
    for (const run of reservation.runs) space.remove(run);
    reservation.runs = [];
    const { mappings } = reservation;
    for (let first = 0; first < mappings.length; ) {
      let last = first;
      while (
        last + 1 < mappings.length &&
        (mappings[last] as Mapping).address + BigInt((mappings[last] as Mapping).size) ===
          (mappings[last + 1] as Mapping).address
      )
        last++;
      const head = mappings[first] as Mapping;
      const tail = mappings[last] as Mapping;
      const size = Number(tail.address - head.address) + tail.size;
      const bytes = new Uint8Array(size);
      for (let i = first; i <= last; i++) {
        const m = mappings[i] as Mapping;
        bytes.set(m.chunk.bytes.subarray(m.offset, m.offset + m.size), Number(m.address - head.address));
      }
      // Context 0n: VMM memory belongs to the device, not to a context a reset would free.
      const run: Allocation = {
        start: head.address,
        size,
        kind: 'device',
        origin: 'vmm',
        bytes,
        device: head.chunk.device,
        context: 0n,
        pool: undefined,
        managed: undefined,
      };
      space.add(run);
      reservation.runs.push(run);
      first = last + 1;
    }
  }

  private freeChunk(chunk: Chunk): void {
    const state = this.state;
    state.deviceBytes[chunk.device] = (state.deviceBytes[chunk.device] as number) - chunk.size;
  }
}
