// Cross-process sharing of VirtualMemoryResource buffers: every physical chunk of a buffer
// exports as one POSIX file descriptor (cuMemExportToShareableHandle); the importer reserves a
// range of its own, imports each descriptor, checks what the driver says the chunk is, maps the
// chunks in order and sets access. The descriptor's sizes are claims: a chunk size larger than
// the chunk is refused by cuMemMap (CUDA_ERROR_INVALID_VALUE), and the whole import is undone.
import {
  CudaStateError,
  checkSize,
  type Driver,
  describeValue,
  type MemAccessDescriptor,
  MemAllocationType,
  MemHandleType,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { exportedHandle, IpcAllocationHandle } from '../../interop/ipc/ipc-allocation-handle.js';
import { mapChunk, reserve, setAccess, Transaction, VirtualAllocation } from './virtual-allocation.js';
import type { VirtualMemorySettings } from './virtual-memory-options.js';

/**
 * What another process needs, beside the file descriptors, to open a VirtualMemoryResource
 * buffer: a plain frozen object (`JSON.stringify`, `structuredClone` and `postMessage` carry it).
 */
export interface VirtualIpcDescriptor {
  /** The buffer's size in bytes (at most the chunks' sizes added up). */
  readonly size: number;
  /** Each physical chunk's size in bytes, in address order; one file descriptor per chunk. */
  readonly chunks: readonly number[];
}

/** What {@link VirtualMemoryResource.exportBuffer} returns. */
export interface VirtualBufferExport {
  /** Sizes to send to the importer. */
  readonly descriptor: VirtualIpcDescriptor;
  /**
   * One handle per chunk, in the descriptor's order, each owning its file descriptor: send the
   * descriptors (child_process stdio, a Unix socket), then close the handles.
   */
  readonly handles: readonly IpcAllocationHandle[];
}

/** The resource state export and import need (not exported from the package). */
export interface VirtualIpcHost {
  readonly driver: () => Driver;
  readonly ordinal: number;
  readonly deviceMemory: number;
  readonly settings: () => VirtualMemorySettings;
  readonly access: () => MemAccessDescriptor[];
  readonly accessOf: (ordinal: number) => number;
}

function checkShareable(host: VirtualIpcHost, action: string): void {
  if ((host.settings().properties.requestedHandleTypes & MemHandleType.PosixFileDescriptor) === 0)
    throw new NotSupportedError(
      `${action} needs a VirtualMemoryResource made with handleType 'posixFd' (its chunks are not exportable)`,
    );
}

/** Exports the chunks of `record` (the allocation of an open buffer) as file descriptors. */
export function exportAllocation(host: VirtualIpcHost, record: VirtualAllocation): VirtualBufferExport {
  checkShareable(host, 'exportBuffer');
  const driver = host.driver();
  const handles: IpcAllocationHandle[] = [];
  try {
    let offset = 0;
    for (const chunk of record.chunks) {
      // Chunks are mapped back to back from the base: the importer maps them the same way.
      if (chunk.offset !== offset) throw new Error('cumem: VMM chunks are not contiguous (bug)');
      offset += chunk.size;
      handles.push(exportedHandle(driver.memExportToFileDescriptor(chunk.handle), null));
    }
  } catch (error) {
    for (const handle of handles) handle.close();
    throw error;
  }
  const chunks = Object.freeze(record.chunks.map((chunk) => chunk.size));
  return Object.freeze({
    descriptor: Object.freeze({ size: record.size, chunks }),
    handles: Object.freeze(handles),
  });
}

/**
 * Checks `descriptor` and `handles` before any driver call.
 * @throws TypeError for values of the wrong shape or closed handles; RangeError for sizes that
 *   are not whole granules, do not cover `size`, or are more than the device has.
 */
function readImport(
  host: VirtualIpcHost,
  descriptor: unknown,
  handles: unknown,
): { size: number; chunks: number[]; fds: number[]; total: number } {
  if (typeof descriptor !== 'object' || descriptor === null)
    throw new TypeError(`descriptor must be a VirtualIpcDescriptor, got ${describeValue(descriptor)}`);
  const claimed = descriptor as { size?: unknown; chunks?: unknown };
  const size = checkSize(claimed.size, 'descriptor.size');
  if (size === 0) throw new RangeError('descriptor.size must be at least 1 byte');
  if (!Array.isArray(claimed.chunks) || claimed.chunks.length === 0)
    throw new TypeError(`descriptor.chunks must be a non-empty array, got ${describeValue(claimed.chunks)}`);
  if (!Array.isArray(handles) || handles.length !== claimed.chunks.length)
    throw new TypeError(
      `handles must be an array of ${claimed.chunks.length} IpcAllocationHandle (one per chunk), got ${describeValue(handles)}`,
    );
  const { granularity } = host.settings();
  let total = 0;
  const chunks = claimed.chunks.map((value: unknown, i: number) => {
    const chunk = checkSize(value, `descriptor.chunks[${i}]`);
    if (chunk === 0 || chunk % granularity !== 0)
      throw new RangeError(
        `descriptor.chunks[${i}] must be a positive multiple of the granularity (${granularity} bytes), got ${chunk}`,
      );
    total += chunk;
    return chunk;
  });
  if (total < size)
    throw new RangeError(`descriptor.size ${size} is more than its chunks hold (${total} bytes)`);
  if (total > host.deviceMemory)
    throw new RangeError(`the descriptor's chunks (${total} bytes) are more than device ${host.ordinal} has`);
  const fds = handles.map((handle: unknown, i: number) => {
    if (!(handle instanceof IpcAllocationHandle))
      throw new TypeError(`handles[${i}] must be an IpcAllocationHandle, got ${describeValue(handle)}`);
    if (handle.isClosed) throw CudaStateError.closed(`IpcAllocationHandle handles[${i}]`);
    return handle.fileDescriptor;
  });
  return { size, chunks, fds, total };
}

/**
 * Imports the chunks another process exported and maps them at a new range of this process.
 * Each chunk must be what this resource makes: pinned device memory of its device, exportable
 * as a POSIX file descriptor (`cuMemGetAllocationPropertiesFromHandle`); otherwise TypeError,
 * and every step before is undone. The handles stay the caller's.
 */
export function importAllocation(
  host: VirtualIpcHost,
  descriptor: unknown,
  handles: unknown,
): VirtualAllocation {
  checkShareable(host, 'importBuffer');
  const { size, chunks, fds, total } = readImport(host, descriptor, handles);
  const driver = host.driver();
  const { alignment } = host.settings();
  return Transaction.run((t) => {
    const piece = reserve(driver, t, total, alignment, 0n);
    const record = new VirtualAllocation(host.accessOf, piece.start, [piece], size);
    let offset = 0;
    chunks.forEach((chunkSize, i) => {
      const handle = driver.memImportFromFileDescriptor(fds[i] as number);
      t.undo(() => driver.memRelease(handle));
      // The chunk's kind and device, as the driver reports them. Not its requested handle types:
      // for an imported handle the driver reports none (it answers 0).
      const properties = driver.memGetAllocationPropertiesFromHandle(handle);
      if (
        properties.allocationType !== MemAllocationType.Pinned ||
        properties.location.type !== MemLocationType.Device ||
        properties.location.id !== host.ordinal
      )
        throw new TypeError(
          `handles[${i}] is not a shareable VMM chunk of device ${host.ordinal} (location ${properties.location.type}:${properties.location.id}, handle types ${properties.requestedHandleTypes})`,
        );
      const chunk = { handle, size: chunkSize, offset };
      mapChunk(driver, t, piece.start, chunk);
      record.chunks.push(chunk);
      offset += chunkSize;
    });
    setAccess(driver, piece.start, total, host.access());
    record.mapped = total;
    record.imported = true;
    return record;
  });
}
