import {
  type DevicePointer,
  type Driver,
  type DriverHandle,
  MemAdvise,
  type MemLocation,
  MemLocationType,
  MemoryType,
  PointerAttribute,
  PointerHandleAttribute,
  viewBuffer,
  viewByteOffset,
} from '@cumem/core-types';
import { detach } from './address-space.js';
import { cudaError } from './cuda-errors.js';
import { duplicateFileDescriptor } from './file-descriptors.js';
import type { ReferenceState } from './reference-state.js';

/** The arguments of the batch prefetches (the same for discard-and-prefetch). */
type PrefetchBatchArguments = Parameters<Driver['memPrefetchBatchAsync']>;

// Bytes a discarded range reads as: "indeterminate" in cuda.h, so something other than the old data.
const discardedByte = 0xdd;

/**
 * The managed-memory, pointer-attribute and host-view members of the reference driver, kept
 * apart from the rest of the class to keep each file about one area.
 */
export abstract class ReferenceManaged {
  constructor(protected readonly state: ReferenceState) {}

  memAdvise(pointer: DevicePointer, size: number, advice: number, location: MemLocation): void {
    const call = 'cuMemAdvise';
    this.state.refuseNumaInLegacyMode(location, call);
    const { allocation, offset } = this.state.managedSpan(pointer, size, call);
    // The CUDA 13.0 driver refuses advice on memory from a managed pool (memAllocManaged memory takes it).
    if (allocation.pool) throw cudaError(call, 'CUDA_ERROR_NOT_SUPPORTED');
    let stored = { type: MemLocationType.Invalid as number, id: 0 };
    switch (advice) {
      case MemAdvise.SetReadMostly:
      case MemAdvise.UnsetReadMostly:
      case MemAdvise.UnsetPreferredLocation:
        break;
      case MemAdvise.SetPreferredLocation:
        stored = this.state.storedLocation(location, call);
        break;
      case MemAdvise.SetAccessedBy:
      case MemAdvise.UnsetAccessedBy:
        // cuda.h: only a Device or the Host can be an accessor; all other location types are invalid.
        if (location.type === MemLocationType.Device) this.state.checkDevice(location.id, call);
        else if (location.type !== MemLocationType.Host) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
        stored = { type: location.type, id: location.type === MemLocationType.Device ? location.id : 0 };
        break;
      default:
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    allocation.managed?.advise(offset, size, advice, stored);
  }

  memPrefetchAsync(pointer: DevicePointer, size: number, location: MemLocation, stream: DriverHandle): void {
    const call = 'cuMemPrefetchAsync';
    const stored = this.state.storedLocation(location, call);
    this.state.checkStream(stream, call);
    const { allocation, offset } = this.state.managedSpan(pointer, size, call);
    allocation.managed?.prefetch(offset, size, stored);
  }

  // The batch members take their parameter lists from the contract.
  memPrefetchBatchAsync(...args: PrefetchBatchArguments): void {
    this.prefetchBatch('cuMemPrefetchBatchAsync', false, ...args);
  }

  memDiscardBatchAsync(
    ...[pointers, sizes, count, stream]: Parameters<Driver['memDiscardBatchAsync']>
  ): void {
    const call = 'cuMemDiscardBatchAsync';
    this.state.refuseBatchInLegacyMode(call, 'batchPrefetchDiscard');
    this.state.checkBatchStream(stream, call);
    for (const range of this.batchRanges(pointers, sizes, count, call)) {
      range.allocation.bytes.fill(discardedByte, range.offset, range.offset + range.size);
    }
  }

  memDiscardAndPrefetchBatchAsync(...args: PrefetchBatchArguments): void {
    this.prefetchBatch('cuMemDiscardAndPrefetchBatchAsync', true, ...args);
  }

  memRangeGetAttribute(pointer: DevicePointer, size: number, attribute: number): number {
    const call = 'cuMemRangeGetAttribute';
    const { allocation, offset } = this.state.managedSpan(pointer, size, call);
    const value = allocation.managed?.rangeAttribute(offset, size, attribute);
    if (value === undefined) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return value;
  }

  memRangeGetAccessedBy(pointer: DevicePointer, size: number): number[] {
    const { allocation, offset } = this.state.managedSpan(pointer, size, 'cuMemRangeGetAttribute');
    return allocation.managed?.accessedBy(offset, size) ?? [];
  }

  pointerGetAttribute(pointer: DevicePointer, attribute: number): number {
    const call = 'cuPointerGetAttribute';
    const allocation = this.state.space.containing(pointer);
    if (!allocation) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    switch (attribute) {
      case PointerAttribute.MemoryType:
        // The driver reports managed memory as device memory; IsManaged tells them apart.
        return allocation.kind === 'host' ? MemoryType.Host : MemoryType.Device;
      case PointerAttribute.IsManaged:
        return allocation.kind === 'managed' ? 1 : 0;
      case PointerAttribute.DeviceOrdinal:
        return allocation.device;
      case PointerAttribute.IsLegacyCudaIpcCapable:
        return 0;
      case PointerAttribute.RangeSize:
        return allocation.size;
      case PointerAttribute.Mapped:
        return 1;
      case PointerAttribute.AllowedHandleTypes:
        return allocation.pool?.description.handleTypes ?? 0;
      case PointerAttribute.AccessFlags:
        return 3;
      default:
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
  }

  pointerGetHandleAttribute(pointer: DevicePointer, attribute: number): bigint {
    const call = 'cuPointerGetAttribute';
    const allocation = this.state.space.containing(pointer);
    if (!allocation) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    switch (attribute) {
      case PointerHandleAttribute.Context:
        return allocation.context;
      case PointerHandleAttribute.DevicePointer:
        return pointer;
      case PointerHandleAttribute.HostPointer:
        // cuda.h: no host pointer for memory the host cannot reach gives CUDA_ERROR_INVALID_VALUE.
        if (allocation.kind === 'device') throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
        return pointer;
      case PointerHandleAttribute.RangeStartAddress:
        return allocation.start;
      case PointerHandleAttribute.MempoolHandle:
        return allocation.pool?.handle ?? 0n;
      default:
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
  }

  hostView(pointer: DevicePointer, size: number): Uint8Array {
    // The adapters' limit (koffi aborts above it), checked before the memory is looked at.
    if (size > 2 ** 32) {
      throw new RangeError(
        `hostView: ${size} bytes are more than one view can show (at most 4294967296 bytes, 4 GiB)`,
      );
    }
    const allocation = this.state.space.containing(pointer);
    if (allocation) {
      if (allocation.kind === 'device') {
        throw new TypeError(
          `hostView: 0x${pointer.toString(16)} is device memory, which the host cannot access`,
        );
      }
      const offset = Number(pointer - allocation.start);
      if (offset + size > allocation.size) {
        throw new RangeError(
          `hostView: ${size} bytes at offset ${offset} pass the end of a ${allocation.size}-byte allocation`,
        );
      }
      return allocation.bytes.subarray(offset, offset + size);
    }
    const bytes = this.state.js.resolve(pointer, size);
    if (!bytes) {
      throw new RangeError(
        `hostView: no live memory holds ${size} bytes at 0x${pointer.toString(16)} (freed or never allocated)`,
      );
    }
    return bytes;
  }

  addressOf(view: ArrayBufferView | ArrayBuffer): DevicePointer {
    if (ArrayBuffer.isView(view))
      return this.state.js.addressOf(viewBuffer(view)) + BigInt(viewByteOffset(view));
    return this.state.js.addressOf(view);
  }

  // Views of one allocation share its backing store (JS cannot alias two ArrayBuffers), so
  // detaching one detaches the memory itself, as freeing it does: @cumem/memory calls this only
  // as it frees. JS memory (from addressOf) belongs to the caller and is never detached.
  detachView(view: ArrayBuffer): boolean {
    if (Object.prototype.toString.call(view) !== '[object ArrayBuffer]') {
      throw new TypeError('detachView: expected an ArrayBuffer');
    }
    if (!this.state.space.owns(view)) return false;
    detach(view);
    return true;
  }

  duplicateFileDescriptor(fd: number): number {
    return duplicateFileDescriptor(fd);
  }

  private prefetchBatch(
    call: string,
    discard: boolean,
    ...[pointers, sizes, count, locations, locationStarts, stream]: PrefetchBatchArguments
  ): void {
    this.state.refuseBatchInLegacyMode(call, 'batchPrefetchDiscard');
    for (const location of locations) this.state.refuseNumaInLegacyMode(location, call);
    this.state.checkBatchStream(stream, call);
    const ranges = this.batchRanges(pointers, sizes, count, call);
    // cuda.h: starts begin at 0, increase, stay below count, and number at most count.
    const valid =
      locations.length >= 1 &&
      locations.length === locationStarts.length &&
      locations.length <= count &&
      locationStarts[0] === 0 &&
      locationStarts.every((start, index) => index === 0 || start > (locationStarts[index - 1] as number)) &&
      (locationStarts[locationStarts.length - 1] as number) < count;
    if (!valid) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const stored = locations.map((location) => this.state.storedLocation(location, call));
    let which = 0;
    ranges.forEach((range, index) => {
      while (which + 1 < locationStarts.length && index >= (locationStarts[which + 1] as number)) which++;
      if (discard) range.allocation.bytes.fill(discardedByte, range.offset, range.offset + range.size);
      range.allocation.managed?.prefetch(
        range.offset,
        range.size,
        stored[which] as { type: number; id: number },
      );
    });
  }

  private batchRanges(pointers: BigUint64Array, sizes: BigUint64Array, count: number, call: string) {
    if (!Number.isInteger(count) || count < 1 || count > Math.min(pointers.length, sizes.length)) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    return Array.from({ length: count }, (_, index) => {
      const size = Number(sizes[index]);
      return { ...this.state.managedSpan(pointers[index] as bigint, size, call), size };
    });
  }
}
