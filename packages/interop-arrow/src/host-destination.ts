// Where CudaBuffer.copyToHost puts the bytes when the caller gives no `buf`: cumem allocates the
// destination, so it can make it page-locked. A device-to-host copy into never-touched pageable
// memory is dominated by first-touch page faults (1.6 GB/s for C on an H200); a HostBuffer from
// the pinned pool is already faulted in and takes the copy at page-locked speed.
import { describeValue } from '@cumem/core-types';
import { newHostBuffer } from './host-buffer.js';

/** What copyToHost allocates without `buf`: `'pinned'` or `'pageable'` (default: by size). */
export type HostDestination = 'pinned' | 'pageable';

/**
 * Without an `output`, copies of this many bytes or more get pinned memory. Measured on an H200
 * (bench row pageable.copyToHostNew256MiB, variants `pinnedOverPageable<bytes>`: copyToHost with
 * pinned output against pageable output, allocation included, a collection and an event-loop turn
 * between copies as in a request loop; two runs, both adapters), pinned output was 0.27-0.45x the
 * speed of a new pageable array at 16 KiB, 0.38-0.52x at 64 KiB, 0.92-1.39x at 256 KiB, 2.6-3.2x
 * at 1 MiB, 4.4-5.6x at 4 MiB and 6.5-8.4x at 16 MiB. Pinned output pays from about 256 KiB; the
 * threshold sits at 1 MiB, where it clearly does, so a small read does not hold page-locked memory
 * until its array is collected for a gain within run-to-run noise.
 */
export const PINNED_OUTPUT_MIN_BYTES = 1 << 20;

/** Checks `output` before any driver call (TypeError naming the choices); undefined: by size. */
export function checkHostDestination(output: unknown): HostDestination | undefined {
  if (output === undefined) return undefined;
  if (output !== 'pinned' && output !== 'pageable')
    throw new TypeError(`output must be 'pinned' or 'pageable', got ${describeValue(output)}`);
  return output;
}

/**
 * `size` new bytes on the host. Pinned bytes are the `bytes` of a HostBuffer from the pinned
 * pool on `device`: the array keeps that memory alive while it is reachable (host-buffer.ts).
 */
export function newHostDestination(
  size: number,
  output: HostDestination | undefined,
  device: number,
): Uint8Array {
  const pinned = output === undefined ? size >= PINNED_OUTPUT_MIN_BYTES : output === 'pinned';
  if (!pinned || size === 0) return new Uint8Array(size);
  return newHostBuffer(size, { device, allocator: 'pool' }).bytes;
}
