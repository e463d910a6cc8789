// What counts as JS memory for copies and holds; its own module so Stream and the copy helpers
// can both use it without importing each other.

import { viewBytes } from '@cumem/core-types';

/** JS memory a copy may read or write. */
export type HostMemory = ArrayBufferView | ArrayBuffer | SharedArrayBuffer;

/** True for an ArrayBufferView, ArrayBuffer or SharedArrayBuffer. */
export function isHostMemory(value: unknown): value is HostMemory {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof SharedArrayBuffer;
}

/**
 * `memory` as a plain Uint8Array over all its bytes, as the engine counts them. Every copy between JS
 * memory and a buffer sizes and addresses the memory through this, so that a view's own
 * properties (`Object.defineProperty(view, 'byteLength', ...)`, a subclass's getters) cannot make
 * a copy larger than the memory: over the FFI adapter such a view once made `copyTo` write past
 * it (a segfault), over N-API copy fewer bytes than the size check had passed.
 */
export function asView(memory: HostMemory): Uint8Array {
  return ArrayBuffer.isView(memory) ? viewBytes(memory) : new Uint8Array(memory);
}
