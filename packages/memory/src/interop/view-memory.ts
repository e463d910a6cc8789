// The Buffer behind a view of @cumem/utils that keeps it private: a DLPack import's view shows
// its producer as `exportingObject` (as cuda.core), not the Buffer cumem wraps around the
// imported memory, which would let a program write through a read-only import. cumem's own
// packages still need that Buffer where they check and hold the memory a kernel is given
// (compute's launch): utils records it here for every view of a Buffer, with the view's own
// check of its bytes against the buffer as it is now, and compute reads both.
import type { Buffer } from '../buffer/buffer.js';

interface RecordedView {
  readonly buffer: Buffer;
  /** Throws when the view's bytes no longer lie in `buffer` (closed, or shrunk since). */
  readonly checkLive: (member: string) => void;
}

const views = new WeakMap<object, RecordedView>();

/** The memory of the views of cumem's packages, by view (weakly: it goes with the view). */
export const viewMemory = Object.freeze({
  /** Records that `view` shows memory of `buffer`, and how the view checks its bytes at each use. */
  record(view: object, buffer: Buffer, checkLive: (member: string) => void): void {
    views.set(view, { buffer, checkLive });
  },
  /** The Buffer recorded for `view`, or undefined (not a view of a Buffer, or not recorded). */
  of(view: unknown): Buffer | undefined {
    return typeof view === 'object' && view !== null ? views.get(view)?.buffer : undefined;
  },
  /**
   * Checks a recorded view's bytes against its Buffer as it is now (nothing for a view not
   * recorded), naming `member` in the error.
   */
  checkLive(view: unknown, member: string): void {
    if (typeof view === 'object' && view !== null) views.get(view)?.checkLive(member);
  },
});
