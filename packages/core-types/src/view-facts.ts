// A JS view's buffer, offset and length as the engine's internal slots hold them, not as properties a program can define
// on the instance: `Object.defineProperty(view, 'byteLength', { value: 2 ** 24 })` shadows the
// prototype's getter. A copy sized or addressed from a shadowed property runs past its view (over
// the FFI adapter, `buffer.copyTo(view)` with such a view was a segfault); the N-API addon reads
// the same facts with napi_get_typedarray_info / napi_get_dataview_info. Every layer that turns JS
// memory into an address and a length reads it through these. The getters and `Reflect.apply` are
// taken once, at load, so a program that later replaces them changes nothing.

const apply = Reflect.apply;

function getterOf(prototype: object, key: PropertyKey): (this: unknown) => unknown {
  const get = Object.getOwnPropertyDescriptor(prototype, key)?.get;
  if (get === undefined) throw new Error(`this JavaScript engine has no ${String(key)} getter`);
  return get;
}

const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
// undefined for anything but a TypedArray (a DataView included), and it never throws.
const typedArrayTag = getterOf(typedArrayPrototype, Symbol.toStringTag);
const typedArray = {
  buffer: getterOf(typedArrayPrototype, 'buffer'),
  byteOffset: getterOf(typedArrayPrototype, 'byteOffset'),
  byteLength: getterOf(typedArrayPrototype, 'byteLength'),
};
const dataView = {
  buffer: getterOf(DataView.prototype, 'buffer'),
  byteOffset: getterOf(DataView.prototype, 'byteOffset'),
  byteLength: getterOf(DataView.prototype, 'byteLength'),
};
const arrayBufferByteLength = getterOf(ArrayBuffer.prototype, 'byteLength');
const sharedArrayBufferByteLength =
  typeof SharedArrayBuffer === 'function' ? getterOf(SharedArrayBuffer.prototype, 'byteLength') : undefined;

// The getters of `view`'s kind; a value that is neither kind gets DataView's, whose getters throw
// a TypeError for it (so does every function below).
function gettersOf(view: unknown): typeof dataView {
  return apply(typedArrayTag, view, []) === undefined ? dataView : typedArray;
}

/** The bytes `view` covers, from its internal slots (0 once its buffer was detached). @throws TypeError for a non-view. */
export function viewByteLength(view: ArrayBufferView): number {
  return apply(gettersOf(view).byteLength, view, []) as number;
}

/** Where `view` starts in its buffer, from its internal slots. @throws TypeError for a non-view. */
export function viewByteOffset(view: ArrayBufferView): number {
  return apply(gettersOf(view).byteOffset, view, []) as number;
}

/** The ArrayBuffer or SharedArrayBuffer under `view`, from its internal slots. @throws TypeError for a non-view. */
export function viewBuffer(view: ArrayBufferView): ArrayBufferLike {
  return apply(gettersOf(view).buffer, view, []) as ArrayBufferLike;
}

/**
 * The bytes of a view, an ArrayBuffer or a SharedArrayBuffer, from their internal slots.
 * @throws TypeError for anything else.
 */
export function memoryByteLength(memory: ArrayBufferView | ArrayBufferLike): number {
  if (ArrayBuffer.isView(memory)) return viewByteLength(memory);
  try {
    return apply(arrayBufferByteLength, memory, []) as number;
  } catch (error) {
    // Not an ArrayBuffer: a SharedArrayBuffer's getter answers, or throws the TypeError.
    if (sharedArrayBufferByteLength === undefined) throw error;
    return apply(sharedArrayBufferByteLength, memory, []) as number;
  }
}

/**
 * A plain Uint8Array over exactly the memory `view` shows (its own properties not consulted);
 * an empty one for a detached view.
 * @throws TypeError for a non-view.
 */
export function viewBytes(view: ArrayBufferView): Uint8Array {
  const getters = gettersOf(view);
  const byteLength = apply(getters.byteLength, view, []) as number;
  if (byteLength === 0) return new Uint8Array(0);
  const buffer = apply(getters.buffer, view, []) as ArrayBufferLike;
  return new Uint8Array(buffer, apply(getters.byteOffset, view, []) as number, byteLength);
}
