// What counts as JS memory for copies and holds; its own module so Stream and the copy helpers
// can both use it without importing each other.

/** JS memory a copy may read or write. */
export type HostMemory = ArrayBufferView | ArrayBuffer | SharedArrayBuffer;

/** True for an ArrayBufferView, ArrayBuffer or SharedArrayBuffer. */
export function isHostMemory(value: unknown): value is HostMemory {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof SharedArrayBuffer;
}

/**
 * `memory` as a plain Uint8Array over all its bytes, as V8 counts them. Every copy between JS
 * memory and a buffer sizes and addresses the memory through this, so that a view's own
 * properties (`Object.defineProperty(view, 'byteLength', ...)`, a subclass's getters) cannot make
 * a copy larger than the memory: over the FFI adapter such a view once made `copyTo` write past
 * it (a segfault), over N-API copy fewer bytes than the size check had passed.
 */
export function asView(memory: HostMemory): Uint8Array {
  return ArrayBuffer.isView(memory) ? honestBytes(memory) : new Uint8Array(memory);
}

// The engine must copy exactly the bytes that were checked: a view's own getters (a subclass
// lying about byteLength, a range object whose `bytes` getter answers differently the second
// time) are read once, through the intrinsic getters, into plain Uint8Arrays.
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
// Taken at load: a program that replaces Reflect.apply later changes nothing here.
const apply = Reflect.apply;
function intrinsic(prototype: object, name: string): (this: unknown) => unknown {
  return Object.getOwnPropertyDescriptor(prototype, name)?.get as (this: unknown) => unknown;
}
const typedArrayGetters = ['buffer', 'byteOffset', 'byteLength'].map((name) =>
  intrinsic(typedArrayPrototype, name),
);
const dataViewGetters = ['buffer', 'byteOffset', 'byteLength'].map((name) =>
  intrinsic(DataView.prototype, name),
);

/** A plain Uint8Array over exactly the memory `view` shows (its getters not consulted). */
export function honestBytes(view: ArrayBufferView): Uint8Array {
  const getters = view instanceof DataView ? dataViewGetters : typedArrayGetters;
  const [buffer, byteOffset, byteLength] = getters.map((get) => apply(get as () => unknown, view, []));
  // A detached view (a closed HostBuffer's, say) reads as 0 bytes, and its buffer takes no new view.
  if (byteLength === 0) return new Uint8Array(0);
  return new Uint8Array(buffer as ArrayBufferLike, byteOffset as number, byteLength as number);
}
