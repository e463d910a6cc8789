// Native code that holds a Buffer's memory (a DLPack consumer): closing the Buffer in JS must
// not free memory a consumer still reads, so the release waits for the last hold to end.

import type { Release } from '../runtime/object-finalizer.js';
import { type BufferBase, bufferBrand, bufferState } from './buffer-base.js';

interface Holds {
  count: number;
  release: Release | undefined;
}

const holds = new WeakMap<BufferBase, Holds>();
// Buffers being held right now, so close() pays one comparison when nothing is held.
let heldBuffers = 0;

/**
 * Keeps the memory of `buffer` (of the Buffer owning it: slices and wrappers resolve to it)
 * allocated until the returned function is called, even if the buffer is closed first: the
 * close then returns the memory when the hold ends. The hold keeps the buffer reachable.
 * Calling the returned function again does nothing.
 * @throws CudaStateError when the buffer is closed.
 */
export function holdMemory(buffer: BufferBase): () => void {
  const state = bufferState(bufferBrand.check(buffer, 'buffer'));
  state.checkOpen();
  return holdOwnerMemory(state.memoryOwner);
}

/**
 * {@link holdMemory} for a caller that checked the buffer already: `owner` is the open Buffer
 * owning the memory (a buffer state's `memoryOwner`).
 */
export function holdOwnerMemory(owner: BufferBase): () => void {
  let entry = holds.get(owner);
  if (entry === undefined) {
    entry = { count: 0, release: undefined };
    holds.set(owner, entry);
  }
  if (entry.count++ === 0) heldBuffers++;
  const held = entry;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    // `owner` stays reachable through this closure until the hold ends.
    if (--held.count !== 0 || owner === undefined) return;
    heldBuffers--;
    const release = held.release;
    held.release = undefined;
    release?.();
  };
}

/** @internal True while a hold on `owner` lasts. */
export function isMemoryHeld(owner: BufferBase): boolean {
  return heldBuffers !== 0 && (holds.get(owner)?.count ?? 0) !== 0;
}

/** @internal Runs `release` now, or when the last hold on `owner` ends. */
export function releaseWhenUnheld(owner: BufferBase, release: Release): void {
  if (heldBuffers !== 0) {
    const entry = holds.get(owner);
    if (entry !== undefined && entry.count !== 0) {
      entry.release = release;
      return;
    }
  }
  release();
}
