// What a DLPack export needs of the Buffer whose memory it describes (dlpack-capsule.ts names no
// Buffer): its open check and access facts, a hold on its memory recorded as a live export, and
// the stream it was allocated on. Facts are read from the state when the export asks for them.
import type { DLPackOwner } from '../interop/dlpack/dlpack-capsule.js';
import { type BufferBase, bufferState } from './buffer-base.js';
import { registerOwnerExport } from './export-registry.js';
import { holdOwnerMemory } from './memory-holds.js';

/** The export owner of `buffer` (a Buffer of this package, checked by the caller). */
export function exportOwner(buffer: BufferBase): DLPackOwner {
  const state = bufferState(buffer);
  return {
    runtime: state.runtime,
    checkOpen: () => state.checkOpen(),
    get isManaged() {
      return state.isManaged;
    },
    get isDeviceAccessible() {
      return state.isDeviceAccessible;
    },
    get isHostAccessible() {
      return state.isHostAccessible;
    },
    hold(start, end) {
      // One open check for both records: neither can fail once the buffer is known to be open.
      state.checkOpen();
      const owner = state.memoryOwner;
      const endExport = registerOwnerExport(owner, 'a DLPack export', start, end);
      const endMemoryHold = holdOwnerMemory(owner);
      return () => {
        endExport();
        endMemoryHold();
      };
    },
    get allocationStream() {
      return bufferState(state.memoryOwner).allocationStream;
    },
  };
}
