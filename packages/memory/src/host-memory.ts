// What counts as JS memory for copies and holds; its own module so Stream and the copy helpers
// can both use it without importing each other.

/** JS memory a copy may read or write. */
export type HostMemory = ArrayBufferView | ArrayBuffer | SharedArrayBuffer;

/** True for an ArrayBufferView, ArrayBuffer or SharedArrayBuffer. */
export function isHostMemory(value: unknown): value is HostMemory {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof SharedArrayBuffer;
}

/** `memory` as a view of all its bytes. */
export function asView(memory: HostMemory): ArrayBufferView {
  return ArrayBuffer.isView(memory) ? memory : new Uint8Array(memory);
}
