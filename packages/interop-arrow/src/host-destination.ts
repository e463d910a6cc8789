// Where CudaBuffer.copyToHost puts the bytes when the caller gives no `buf`: cumem allocates the
// destination, so it can make it page-locked. A device-to-host copy into never-touched pageable
// memory is dominated by first-touch page faults (1.6 GB/s for C on an H200); a HostBuffer from
// the pinned pool is already faulted in and takes the copy at page-locked speed.
import { newHostBuffer } from './host-buffer.js';

/** What copyToHost allocates without `buf`: `'pinned'` or `'pageable'` (default: by size). */
export type HostDestination = 'pinned' | 'pageable';

/**
 * Without an `output`, copies of this many bytes or more get pinned memory. Below it the first-touch
 * faults are few (256 pages at 1 MiB) and a small read should not hold page-locked memory until
 * its array is collected. (Chosen, not yet swept on the device: see bench row
 * pageable.copyToHostNew256MiB.)
 */
export const PINNED_OUTPUT_MIN_BYTES = 1 << 20;

/** Checks `output` before any driver call (TypeError naming the choices); undefined: by size. */
export function checkHostDestination(output: unknown): HostDestination | undefined {
  if (output === undefined) return undefined;
  if (output !== 'pinned' && output !== 'pageable')
    throw new TypeError(`output must be 'pinned' or 'pageable', got ${String(output)}`);
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
