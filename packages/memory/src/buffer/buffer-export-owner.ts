// What a DLPack export needs of the Buffer whose memory it describes (dlpack-capsule.ts names no
// Buffer): its open check and access facts, a hold on its memory recorded as a live export, and
// the stream it was allocated on. Facts are read from the state when the export asks for them.
import type { DLPackOwner } from '../interop/dlpack/dlpack-capsule.js';
import { type BufferBase, bufferState } from './buffer-base.js';
import { registerExport } from './export-registry.js';
import { holdMemory } from './memory-holds.js';

/** The export owner of `buffer` (a Buffer of this package, checked by the caller). */
export function exportOwner(buffer: BufferBase): DLPackOwner {
  return {
    checkOpen: () => bufferState(buffer).checkOpen(),
    get isManaged() {
      return bufferState(buffer).isManaged;
    },
    get isDeviceAccessible() {
      return bufferState(buffer).isDeviceAccessible;
    },
    get isHostAccessible() {
      return bufferState(buffer).isHostAccessible;
    },
    hold(start, end) {
      const endExport = registerExport(buffer, 'a DLPack export', start, end);
      let endMemoryHold: () => void;
      try {
        endMemoryHold = holdMemory(buffer);
      } catch (error) {
        endExport();
        throw error;
      }
      return () => {
        endExport();
        endMemoryHold();
      };
    },
    get allocationStream() {
      return bufferState(bufferState(buffer).memoryOwner).allocationStream;
    },
  };
}
