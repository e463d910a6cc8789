// Where CudaBuffer.copyToHost puts the bytes when the caller gives no `buf`: cumem allocates the
// destination, so it can make it page-locked. A device-to-host copy into never-touched pageable
// memory is dominated by first-touch page faults; a HostBuffer from the pinned pool is already
// faulted in and takes the copy at page-locked speed.
import { describeValue } from '@cumem/core-types';
import { newHostBuffer } from './host-buffer.js';

/** What copyToHost allocates without `buf`: `'pinned'` or `'pageable'` (default: by size). */
export type HostDestination = 'pinned' | 'pageable';

/**
 * Without an `output`, copies of this many bytes or more get pinned memory. Pinned output starts
 * to pay somewhat below this size (bench row pageable.copyToHostNew256MiB, variants
 * `pinnedOverPageable<bytes>`); the threshold sits where it clearly does, so that a small read
 * does not hold page-locked memory until its array is collected for a gain within the noise.
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
