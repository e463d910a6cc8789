// The Buffer a VirtualMemoryResource hands out: a Buffer in every way. Its slices are recorded
// with the resource, so that modifyAllocation can refuse a shrink below one that is still open:
// Buffer.slice does that for every buffer of this kind (its state's kind, `recordsSlices`), so
// that no other `slice` a program calls it through can skip the record.
import { Buffer, type BufferKind } from '../../buffer/buffer.js';
import { defineBufferKind } from '../../buffer/buffer-construction.js';

export type { SliceRecorder } from '../../buffer/buffer-state.js';

/** A Buffer of a VirtualMemoryResource (`instanceof Buffer`; its class is not exported). */
export class VirtualBuffer extends Buffer {}

/** @internal The kind of VirtualBuffers: what VirtualMemoryResource passes to `allocatedBuffer`. */
export const virtualBufferKind: BufferKind = defineBufferKind('VirtualBuffer', VirtualBuffer as never, true);
