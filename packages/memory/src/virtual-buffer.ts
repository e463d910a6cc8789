// The Buffer a VirtualMemoryResource hands out: a Buffer in every way, whose slices are recorded
// so that modifyAllocation can refuse a shrink below one that is still open.
import { Buffer } from './buffer.js';

/** What VirtualBuffer tells its resource. */
export interface SliceRecorder {
  noteSlice(slice: Buffer): void;
}

/** A Buffer of a VirtualMemoryResource (`instanceof Buffer`; its class is not exported). */
export class VirtualBuffer extends Buffer {
  override slice(offset: number, length?: number): this {
    const view = super.slice(offset, length);
    (this.resource as unknown as SliceRecorder).noteSlice(view);
    return view;
  }
}
