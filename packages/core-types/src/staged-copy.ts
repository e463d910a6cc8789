// The checks and the split that every adapter's staged copy shares, so a bad option gives the
// same RangeError everywhere and the reference driver copies in exactly the pieces the others do.
import type { StagedCopyOptions } from './driver-types.js';
import { describeValue } from './validate.js';

/** The most threads one staged copy may use. */
export const STAGED_COPY_MAX_THREADS = 64;

/**
 * The largest chunk (bytes) a staged copy may use on any adapter: 4 GiB. The FFI adapter's
 * staging workers see each pinned chunk and host range through `koffi.view`, which aborts the
 * process (node-addon-api fatal error, SIGABRT) for a view past 2^32 bytes; the N-API engine
 * has no such bound, but one limit keeps settings portable between adapters (chunks are MiBs:
 * a larger one only costs twice its size in page-locked memory per thread).
 */
export const STAGED_COPY_MAX_CHUNK_BYTES = 2 ** 32;

/**
 * Checks `options` of a staged copy named `call` (`'stagedCopyHtoD'`).
 * @throws RangeError for a chunk size that is not an integer from 1 to
 *   {@link STAGED_COPY_MAX_CHUNK_BYTES}, or a thread count that is not an integer from 1 to
 *   {@link STAGED_COPY_MAX_THREADS}.
 */
export function checkStagedCopyOptions(call: string, options: StagedCopyOptions): void {
  const { chunkBytes, threads } = options;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > STAGED_COPY_MAX_CHUNK_BYTES) {
    throw new RangeError(
      `${call}: options.chunkBytes must be an integer from 1 to ${STAGED_COPY_MAX_CHUNK_BYTES} (4 GiB), got ${describeValue(chunkBytes)}`,
    );
  }
  if (!Number.isInteger(threads) || threads < 1 || threads > STAGED_COPY_MAX_THREADS) {
    throw new RangeError(
      `${call}: options.threads must be an integer from 1 to ${STAGED_COPY_MAX_THREADS}, got ${describeValue(threads)}`,
    );
  }
}

/** One thread's part of a staged copy: bytes [begin, end) of the whole. */
export interface StagedSlice {
  readonly begin: number;
  readonly end: number;
}

/**
 * How a staged copy of `size` bytes is split between `threads` threads: contiguous slices, each
 * a whole number of `chunkBytes` chunks except the last, so no chunk is smaller than it must be
 * and no thread gets an empty slice (fewer threads run when there are fewer chunks).
 */
export function stagedCopySlices(size: number, chunkBytes: number, threads: number): StagedSlice[] {
  const chunks = Math.ceil(size / chunkBytes);
  const used = Math.min(threads, chunks);
  const slices: StagedSlice[] = [];
  let begin = 0;
  for (let index = 0; index < used; index++) {
    // Chunks are dealt as evenly as they go: the first (chunks % used) threads get one more.
    const count = Math.floor(chunks / used) + (index < chunks % used ? 1 : 0);
    const end = Math.min(size, begin + count * chunkBytes);
    slices.push({ begin, end });
    begin = end;
  }
  return slices;
}
