// The options of CudaBuffer's copies (pyarrow.cuda's position / nbytes rules, and where a copy
// to the host lands).
import type { HostData } from '../host/host-bytes.js';
import type { HostDestination } from '../host/host-destination.js';

/** Options of the copies into a CudaBuffer. */
export interface CopyIntoOptions {
  /** Byte offset in this buffer where the copy starts. Default 0. */
  readonly position?: number;
  /** Bytes to copy; -1 (default) = as many as fit and are available. */
  readonly nbytes?: number;
}

/** Options of {@link CudaBuffer.copyToHost}. */
export interface CopyToHostOptions extends CopyIntoOptions {
  /** Host memory to fill (its start); default: a new Uint8Array of the copied size. */
  readonly buf?: HostData;
  /**
   * Without `buf`: `'pinned'`, new page-locked memory of the pinned pool (kept alive by the array;
   * no first-touch faults), or `'pageable'`, a plain array. Default: pinned from 1 MiB up.
   */
  readonly output?: HostDestination;
}
