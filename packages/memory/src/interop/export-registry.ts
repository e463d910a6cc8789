// The live exports of a buffer's memory: ranges that a reader outside cumem's checks holds by
// address (a DLPack consumer, a CUDA Array Interface import of @cumem/utils) and reads without
// asking cumem again. A resize that would unmap or move bytes under one of them (a shrink past
// it, a grow that remaps the buffer at a new address) is refused while it is live, here, in
// the one place modifyAllocation asks (resources/virtual/virtual-resize.ts), as cuda.core
// refuses to free memory a DLPack consumer still holds. Closing the buffer needs no refusal:
// an export holds the memory (memory-holds.ts) and the free waits for it.
import { CudaStateError, checkAddress, describeValue } from '@cumem/core-types';
import { type BufferBase, bufferBrand, bufferState } from '../buffer/buffer-base.js';

/** One live export: `[start, end)` addresses, and what holds it (for the refusal's message). */
export interface LiveExport {
  /** What holds the range, e.g. `'a DLPack export'`. */
  readonly what: string;
  readonly start: bigint;
  readonly end: bigint;
}

// By the Buffer that owns the memory (slices and wrappers resolve to it), weakly: a collected
// buffer has no resize to refuse.
const exportsByOwner = new WeakMap<BufferBase, Set<LiveExport>>();

/**
 * Records that `what` holds `[start, end)` of `buffer`'s memory until the returned function is
 * called (calling it again does nothing). While it is live, `modifyAllocation` refuses a
 * shrink below `end` and a grow that moves the buffer.
 * @throws TypeError for anything but a Buffer, a bad address or a `what` that is not a string;
 *   RangeError when `end` is below `start`; CudaStateError when the buffer is closed.
 */
export function registerExport(buffer: BufferBase, what: string, start: bigint, end: bigint): () => void {
  bufferBrand.check(buffer, 'buffer');
  if (typeof what !== 'string') throw new TypeError(`what must be a string, got ${describeValue(what)}`);
  checkAddress(start, 'start');
  checkAddress(end, 'end');
  if (end < start)
    throw new RangeError(`end (0x${end.toString(16)}) is below start (0x${start.toString(16)})`);
  bufferState(buffer).checkOpen();
  const owner = bufferState(buffer).memoryOwner;
  let live = exportsByOwner.get(owner);
  if (live === undefined) {
    live = new Set();
    exportsByOwner.set(owner, live);
  }
  const entry: LiveExport = Object.freeze({ what, start, end });
  live.add(entry);
  const set = live;
  return () => {
    set.delete(entry);
  };
}

/** The live exports of the memory `buffer` shows (of the Buffer owning it). */
export function liveExportsOf(buffer: BufferBase): readonly LiveExport[] {
  bufferBrand.check(buffer, 'buffer');
  const live = exportsByOwner.get(bufferState(buffer).memoryOwner);
  return live === undefined ? [] : [...live];
}

/**
 * The CudaStateError for `operation` when a live export of `buffer` reaches past its first
 * `keptBytes` bytes (the bytes that stay mapped at the same address: the new size of a shrink,
 * 0 for a grow that moves the buffer); nothing otherwise.
 */
export function refuseUnderLiveExports(buffer: BufferBase, keptBytes: number, operation: string): void {
  const live = exportsByOwner.get(bufferState(buffer).memoryOwner);
  if (live === undefined || live.size === 0) return;
  const base = bufferState(bufferState(buffer).memoryOwner).pointer;
  const keptEnd = base + BigInt(keptBytes);
  for (const entry of live) {
    if (keptBytes !== 0 && entry.end <= keptEnd) continue;
    const from = entry.start - base;
    const to = entry.end - base;
    throw new CudaStateError(
      `${operation}: ${entry.what} holds bytes ${from} to ${to} of the buffer, which ` +
        `${keptBytes === 0 ? 'would move to a new address' : `end past the new size ${keptBytes}`}; ` +
        'release it first (close the DLPack capsule or let its consumer call the deleter, close the view)',
    );
  }
}
