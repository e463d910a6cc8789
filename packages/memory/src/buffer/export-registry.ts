// The live exports of a buffer's memory: ranges that a reader outside cumem's checks holds by
// address (a DLPack consumer, a CUDA Array Interface import of @cumem/utils) and reads without
// asking cumem again. A resize that would unmap or move bytes under one of them (a shrink past
// it, a grow that remaps the buffer at a new address) is refused while it is live, here, in
// the one place modifyAllocation asks (resources/virtual/virtual-resize.ts), as cuda.core
// refuses to free memory a DLPack consumer still holds. Closing the buffer needs no refusal:
// an export holds the memory (memory-holds.ts) and the free waits for it.
//
// A DLPack export knows its Buffer. A CUDA Array Interface import knows only addresses: it is
// recorded against the VMM allocation holding them (the only memory a resize can move or
// unmap), found through the ranges VirtualMemoryResources keep.
import { CudaStateError, checkAddress, type Driver, describeValue } from '@cumem/core-types';
import { type VirtualRange, virtualRangeAt } from '../resources/virtual/virtual-ranges.js';
import { type BufferBase, bufferBrand, bufferState } from './buffer-base.js';

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
// By the VMM allocation holding the addresses, weakly: a freed allocation has no resize to refuse.
const exportsByRange = new WeakMap<VirtualRange, Set<LiveExport>>();

function checkExportArguments(what: unknown, startArgument: bigint, endArgument: bigint): LiveExport {
  if (typeof what !== 'string') throw new TypeError(`what must be a string, got ${describeValue(what)}`);
  const start = checkAddress(startArgument, 'start');
  const end = checkAddress(endArgument, 'end');
  if (end < start)
    throw new RangeError(`end (0x${end.toString(16)}) is below start (0x${start.toString(16)})`);
  return Object.freeze({ what, start, end });
}

// Adds `entry` to the set `key` maps to; the returned release can be called any number of times.
function addExport<K extends object>(
  map: WeakMap<K, Set<LiveExport>>,
  key: K,
  entry: LiveExport,
): () => void {
  let live = map.get(key);
  if (live === undefined) {
    live = new Set();
    map.set(key, live);
  }
  live.add(entry);
  const set = live;
  return () => {
    set.delete(entry);
  };
}

/**
 * Records that `what` holds `[start, end)` of `buffer`'s memory until the returned function is
 * called (calling it again does nothing). While it is live, `modifyAllocation` refuses a
 * shrink below `end` and a grow that moves the buffer.
 * @throws TypeError for anything but a Buffer, a bad address or a `what` that is not a string;
 *   RangeError when `end` is below `start`; CudaStateError when the buffer is closed.
 */
export function registerExport(buffer: BufferBase, what: string, start: bigint, end: bigint): () => void {
  const state = bufferState(bufferBrand.check(buffer, 'buffer'));
  const entry = checkExportArguments(what, start, end);
  state.checkOpen();
  return addExport(exportsByOwner, state.memoryOwner, entry);
}

/**
 * {@link registerExport} for a caller that checked the buffer already: `owner` is the open
 * Buffer owning the memory (a buffer state's `memoryOwner`).
 */
export function registerOwnerExport(owner: BufferBase, what: string, start: bigint, end: bigint): () => void {
  return addExport(exportsByOwner, owner, checkExportArguments(what, start, end));
}

/**
 * Records that `what` holds `[start, end)` by address until the returned function is called
 * (calling it again does nothing), for a holder that knows no Buffer (a CUDA Array Interface
 * import). While it is live, `modifyAllocation` of the cumem VMM allocation holding `start`
 * refuses a shrink below `end` and a grow that moves it. Memory no live VMM allocation of
 * `driver` holds cannot be resized: nothing is recorded, and the returned function does nothing.
 * @throws TypeError for a bad address or a `what` that is not a string; RangeError when `end`
 *   is below `start`.
 */
export function registerExportAt(driver: Driver, start: bigint, end: bigint, what: string): () => void {
  const entry = checkExportArguments(what, start, end);
  const range = virtualRangeAt(driver, entry.start);
  if (range === undefined) return () => {};
  return addExport(exportsByRange, range, entry);
}

/** The live exports of the memory `buffer` shows (of the Buffer owning it). */
export function liveExportsOf(buffer: BufferBase): readonly LiveExport[] {
  bufferBrand.check(buffer, 'buffer');
  const live = exportsByOwner.get(bufferState(buffer).memoryOwner);
  return live === undefined ? [] : [...live];
}

/**
 * The CudaStateError for `operation` when a live export of `buffer` (the VMM allocation `range`)
 * reaches past its first `keptBytes` bytes (the bytes that stay mapped at the same address: the
 * new size of a shrink, 0 for a grow that moves the buffer); nothing otherwise.
 */
export function refuseUnderLiveExports(
  buffer: BufferBase,
  range: VirtualRange,
  keptBytes: number,
  operation: string,
): void {
  const base = range.base;
  for (const live of [exportsByOwner.get(bufferState(buffer).memoryOwner), exportsByRange.get(range)]) {
    if (live === undefined) continue;
    for (const entry of live) refuseOne(entry, base, keptBytes, operation);
  }
}

function refuseOne(entry: LiveExport, base: bigint, keptBytes: number, operation: string): void {
  if (keptBytes !== 0 && entry.end <= base + BigInt(keptBytes)) return;
  const from = entry.start - base;
  const to = entry.end - base;
  throw new CudaStateError(
    `${operation}: ${entry.what} holds bytes ${from} to ${to} of the buffer, which ` +
      `${keptBytes === 0 ? 'would move to a new address' : `end past the new size ${keptBytes}`}; ` +
      'release it first (close the DLPack capsule or let its consumer call the deleter, close the view)',
  );
}
