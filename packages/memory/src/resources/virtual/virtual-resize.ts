// VirtualMemoryResource.modifyAllocation: shrink, grow in place (in the reserved range, or
// after extending it at the address right after it), or grow by mapping the chunks at a new
// range. Kept apart from the resource to keep each file small. A shrink past a live export
// and a moving grow under one are refused (buffer/export-registry.ts): the export's reader
// holds the old addresses.
import { CudaError, CudaStateError, type Driver, type MemAccessDescriptor } from '@cumem/core-types';
import { type Buffer, closeBuffer } from '../../buffer/buffer.js';
import { bufferState } from '../../buffer/buffer-base.js';
import { refuseUnderLiveExports } from '../../buffer/export-registry.js';
import type { LiveAllocations } from '../../buffer/live-allocations.js';
import type { Stream } from '../../stream/stream.js';
import {
  mapChunk,
  type ReservedPiece,
  reserve,
  setAccess,
  Transaction,
  unmapAndFree,
  type VirtualAllocation,
  type VirtualChunk,
} from './virtual-allocation.js';
import type { ModifyAllocationResult, VirtualMemorySettings } from './virtual-memory-options.js';

/** What the resize steps need of their resource (not exported from the package). */
export interface ResizeHost {
  readonly resource: object;
  driver(): Driver;
  settings(): VirtualMemorySettings;
  readonly live: LiveAllocations;
  readonly records: Map<bigint, VirtualAllocation>;
  readonly retired: Set<bigint>;
  access(): MemAccessDescriptor[];
  createChunk(t: Transaction, size: number, offset: number): VirtualChunk;
  waitForWork(buffer: Buffer): void;
  newBuffer(base: bigint, size: number, stream: Stream | undefined): Buffer;
}

/** Resizes `record` (of `buffer`) to `newSize` bytes, `aligned` rounded to the granularity. */
export function resizeAllocation(
  host: ResizeHost,
  buffer: Buffer,
  record: VirtualAllocation,
  newSize: number,
  aligned: number,
): ModifyAllocationResult {
  if (aligned <= record.mapped) {
    shrink(host, buffer, record, newSize, aligned);
    return { buffer, moved: false };
  }
  const extension = aligned > record.reserved ? extendReservation(host, record, aligned) : null;
  if (aligned <= record.reserved) {
    try {
      growInPlace(host, record, aligned);
    } catch (error) {
      // Transactional: the extension reserved for this grow goes too.
      if (extension !== null) dropExtension(host, record, extension);
      throw error;
    }
    record.size = newSize;
    bufferState(buffer).size = newSize;
    return { buffer, moved: false };
  }
  return { buffer: growByRemapping(host, buffer, record, newSize, aligned), moved: true };
}

function dropExtension(host: ResizeHost, record: VirtualAllocation, piece: ReservedPiece): void {
  record.pieces.splice(record.pieces.indexOf(piece), 1);
  try {
    host.driver().memAddressFree(piece.start, piece.size);
  } catch (error) {
    process.emitWarning(
      `cumem: undoing a VMM range extension failed: ${(error as Error).message}`,
      'CumemWarning',
    );
  }
}

function shrink(
  host: ResizeHost,
  buffer: Buffer,
  record: VirtualAllocation,
  newSize: number,
  aligned: number,
): void {
  if (newSize < record.size) {
    // A reader holding bytes by address past the new size would read unmapped memory.
    refuseUnderLiveExports(buffer, record, newSize, 'modifyAllocation');
    const end = record.sliceEnd();
    if (end > newSize) {
      throw new CudaStateError(
        `modifyAllocation: an open slice of the buffer reaches byte ${end}, past the new size ${newSize}; close it first`,
      );
    }
  }
  const tail = record.chunks.filter((chunk) => chunk.offset >= aligned);
  if (tail.length > 0) {
    host.waitForWork(buffer);
    const driver = host.driver();
    const from = record.mapped;
    unmapAndFree(driver, record.base, tail, []);
    for (const chunk of tail) {
      record.chunks.splice(record.chunks.indexOf(chunk), 1);
      record.mapped -= chunk.size;
      driver.memRelease(chunk.handle);
    }
    host.live.resize(record.base, from, record.mapped);
  }
  record.size = newSize;
  bufferState(buffer).size = newSize;
}

/** Reserves the address right after the range when the driver gives exactly that; the piece, or null. */
function extendReservation(
  host: ResizeHost,
  record: VirtualAllocation,
  aligned: number,
): ReservedPiece | null {
  const driver = host.driver();
  const need = aligned - record.reserved;
  const hint = record.base + BigInt(record.reserved);
  let start: bigint;
  try {
    start = driver.memAddressReserve(need, 0, hint);
  } catch (error) {
    // No address space there or anywhere: the remapping path reports what the driver says.
    if (CudaError.isInstance(error)) return null;
    throw error;
  }
  if (start !== hint) {
    driver.memAddressFree(start, need);
    return null;
  }
  const piece = { start, size: need };
  record.pieces.push(piece);
  return piece;
}

function growInPlace(host: ResizeHost, record: VirtualAllocation, aligned: number): void {
  const driver = host.driver();
  const delta = aligned - record.mapped;
  const chunk = Transaction.run((t) => {
    const made = host.createChunk(t, delta, record.mapped);
    mapChunk(driver, t, record.base, made);
    setAccess(driver, record.base + BigInt(made.offset), delta, host.access());
    return made;
  });
  record.chunks.push(chunk);
  host.live.resize(record.base, record.mapped, aligned);
  record.mapped = aligned;
}

function growByRemapping(
  host: ResizeHost,
  buffer: Buffer,
  record: VirtualAllocation,
  newSize: number,
  aligned: number,
): Buffer {
  // A reader holding bytes by address would keep the old, unmapped address.
  refuseUnderLiveExports(buffer, record, 0, 'modifyAllocation');
  const driver = host.driver();
  const { alignment, reserveSize } = host.settings();
  const { piece, chunk } = Transaction.run((t) => {
    const fresh = reserve(driver, t, Math.max(aligned, reserveSize), alignment, 0n);
    for (const existing of record.chunks) mapChunk(driver, t, fresh.start, existing);
    const made = host.createChunk(t, aligned - record.mapped, record.mapped);
    mapChunk(driver, t, fresh.start, made);
    setAccess(driver, fresh.start, aligned, host.access());
    return { piece: fresh, chunk: made };
  });
  // Committed: the new range shows the chunks. The old one goes once no queued work uses it.
  host.waitForWork(buffer);
  const old = { base: record.base, chunks: [...record.chunks], pieces: record.pieces, mapped: record.mapped };
  host.records.delete(old.base);
  record.base = piece.start;
  record.pieces = [piece];
  record.chunks.push(chunk);
  record.mapped = aligned;
  record.size = newSize;
  record.slices.length = 0;
  host.records.set(record.base, record);
  host.retired.add(old.base);
  try {
    unmapAndFree(driver, old.base, old.chunks, old.pieces);
  } finally {
    closeBuffer(buffer);
    // After the close, which puts the old pointer in the Set when it defers (live-allocations.ts).
    host.live.delete(old.base, old.mapped);
    host.live.add(record.base, record.mapped);
  }
  return host.newBuffer(record.base, newSize, bufferState(buffer).allocationStream);
}
