// Where CudaBuffer.copyToHost puts the bytes when the caller gives no `buf`: cumem allocates the
// destination, so it can make it page-locked. A device-to-host copy into never-touched pageable
// memory is dominated by first-touch page faults (1.6 GB/s for C on an H200); a HostBuffer from
// the pinned pool is already faulted in and takes the copy at page-locked speed.
import { newHostBuffer } from './host-buffer.js';

/** What copyToHost allocates without `buf`: `'pinned'` (default) or `'pageable'`. */
export type HostDestination = 'pinned' | 'pageable';

/** Checks `output` before any driver call (TypeError naming the choices). */
export function checkHostDestination(output: unknown): HostDestination {
  if (output === undefined) return 'pinned';
  if (output !== 'pinned' && output !== 'pageable')
    throw new TypeError(`output must be 'pinned' or 'pageable', got ${String(output)}`);
  return output;
}

/**
 * `size` new bytes on the host. Pinned bytes are the `bytes` of a HostBuffer from the pinned
 * pool on `device`: the array keeps that memory alive while it is reachable (host-buffer.ts).
 */
export function newHostDestination(size: number, output: HostDestination, device: number): Uint8Array {
  if (output === 'pageable' || size === 0) return new Uint8Array(size);
  return newHostBuffer(size, { device, allocator: 'pool' }).bytes;
}
