// The Buffer behind a view of @cumem/utils that keeps it private: a DLPack import's view shows
// its producer as `exportingObject` (as cuda.core), not the Buffer cumem wraps around the
// imported memory, which would let a program write through a read-only import. cumem's own
// packages still need that Buffer where they check and hold the memory a kernel is given
// (compute's launch): utils records it here for every view of a Buffer, compute reads it.
import type { Buffer } from '../buffer/buffer.js';

const buffers = new WeakMap<object, Buffer>();

/** The memory of the views of cumem's packages, by view (weakly: it goes with the view). */
export const viewMemory = Object.freeze({
  /** Records that `view` shows memory of `buffer`. */
  record(view: object, buffer: Buffer): void {
    buffers.set(view, buffer);
  },
  /** The Buffer recorded for `view`, or undefined (not a view of a Buffer, or not recorded). */
  of(view: unknown): Buffer | undefined {
    return typeof view === 'object' && view !== null ? buffers.get(view) : undefined;
  },
});
