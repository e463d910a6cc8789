// The limits and the option check of every staged copy, shared by the adapters and by
// @cumem/memory's configureStaging, so a bad option gives the same RangeError everywhere.
import type { StagedCopyOptions } from './driver/memory.js';
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
 * @throws TypeError when `options` is not an object; RangeError for a chunk size that is not an
 *   integer from 1 to {@link STAGED_COPY_MAX_CHUNK_BYTES}, or a thread count that is not an
 *   integer from 1 to {@link STAGED_COPY_MAX_THREADS}.
 */
export function checkStagedCopyOptions(call: string, options: StagedCopyOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${call}: options must be { chunkBytes, threads }, got ${describeValue(options)}`);
  }
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
