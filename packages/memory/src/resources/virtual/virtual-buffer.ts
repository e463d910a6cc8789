// The Buffer a VirtualMemoryResource hands out: a Buffer in every way. Its slices are recorded
// with the resource, so that modifyAllocation can refuse a shrink below one that is still open:
// Buffer.slice does that for every buffer of this kind (buffer-parts.ts' virtualClass), so that
// no other `slice` a program calls it through can skip the record.
import { Buffer, registerBufferClass } from '../../buffer/buffer.js';
import { virtualClass } from '../../buffer/buffer-parts.js';

export type { SliceRecorder } from '../../buffer/buffer-parts.js';

/** A Buffer of a VirtualMemoryResource (`instanceof Buffer`; its class is not exported). */
export class VirtualBuffer extends Buffer {}

registerBufferClass(VirtualBuffer, virtualClass);
