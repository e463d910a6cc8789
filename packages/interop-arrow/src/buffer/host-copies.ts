// Host <-> device copies of CudaBuffers. @cumem/memory's copy engine decides how bytes move
// (page-locked memory straight from where it is, pageable memory staged by its rule, one wait
// at the end); this file only turns a CudaBuffer and its options into memory's terms. Copies go
// to memory's per-device default stream and return when done (pyarrow's copies are synchronous).
import { checkOptions } from '@cumem/core-types';
import {
  copyRangesFromHost,
  copyRangesToHost,
  type HostRange,
  type HostStaging,
  type Buffer as MemoryBuffer,
  ownerMemoryBuffer,
} from '@cumem/memory';
import { type HostBuffer, hostBufferBrand } from '../host/host-buffer.js';
import type { CudaBuffer } from './cuda-buffer.js';

/**
 * How pageable host bytes reach the device (page-locked bytes — columns built with
 * `newHostArray` or over a HostBuffer's `bytes`, a table from `tableFromDevice`, registered
 * memory — are always copied straight from where they are, one copy each, back-to-back ones merged):
 * - `'auto'` (default): large pageable columns through the driver's staged copy (pinned chunks
 *   on native threads), small pieces (IPC metadata, padding) gathered into one copy each;
 * - `'pinned'`: every pageable piece through the driver's staged copy;
 * - `'pageable'`: no staging; each piece is copied from JS memory (the driver stages it);
 * - a {@link HostBuffer}: pageable pieces are copied into it and from there (reuse it across
 *   calls to avoid pinning memory each time); as large as the pageable bytes, it is filled once with no waits.
 *
 * See `HostStaging` of @cumem/memory, which implements these.
 */
export type StagingChoice = 'auto' | 'pinned' | 'pageable' | HostBuffer;

/** Options of uploads (`serializeRecordBatch`, `tableToDevice`). */
export interface UploadOptions {
  /** See {@link StagingChoice}. Default `'auto'`. */
  readonly staging?: StagingChoice;
  /**
   * Formerly the bytes of the pinned staging ring (checked to be a positive integer).
   * @deprecated No effect: uploads have no staging ring of their own any more (@cumem/memory's
   * copy engine stages pageable memory).
   */
  readonly stagingBytes?: number;
}

/** Checked upload options, in @cumem/memory's terms. */
export interface CheckedUpload {
  readonly staging: HostStaging;
}

/** Checks the options before any driver call. */
export function checkUploadOptions(options: UploadOptions | undefined): CheckedUpload {
  const { staging = 'auto', stagingBytes = 1 } = checkOptions(options);
  if (!hostBufferBrand.has(staging) && staging !== 'auto' && staging !== 'pinned' && staging !== 'pageable') {
    throw new TypeError(
      `staging must be 'auto', 'pinned', 'pageable' or a HostBuffer, got ${String(staging)}`,
    );
  }
  if (!Number.isSafeInteger(stagingBytes) || stagingBytes < 1) {
    throw new RangeError(`stagingBytes must be a positive integer, got ${String(stagingBytes)}`);
  }
  if (!hostBufferBrand.has(staging)) return { staging };
  const memory = staging[ownerMemoryBuffer];
  if (memory === null) throw new RangeError('the staging HostBuffer is empty');
  return { staging: memory };
}

/** The memory Buffer holding `buffer`'s bytes and where they start in it (views resolve to their root). */
export function memoryOf(buffer: CudaBuffer): { memory: MemoryBuffer; start: number } {
  let root = buffer;
  while (root.parent !== null) root = root.parent;
  return { memory: root[ownerMemoryBuffer], start: Number(buffer.address - root.address) };
}

/** Writes `ranges` (offsets relative to `target`'s first byte) into `target`; returns when done. */
export function writeRanges(target: CudaBuffer, ranges: readonly HostRange[], upload: CheckedUpload): void {
  const { memory, start } = memoryOf(target);
  const placed =
    start === 0 ? ranges : ranges.map(({ offset, bytes }) => ({ offset: start + offset, bytes }));
  copyRangesFromHost(memory, placed, { staging: upload.staging });
}

/** Reads `target.byteLength` bytes of `source` from `position` into `target`; returns when done. */
export function readRange(source: CudaBuffer, position: number, target: Uint8Array): void {
  const { memory, start } = memoryOf(source);
  copyRangesToHost(memory, [{ offset: start + position, bytes: target }]);
}
