// Buffers whose every member is shadowed by an own property that records and refuses its read:
// the tests that cumem reads a Buffer's facts (`handle`, `size`, `isClosed`, `deviceId`, ...)
// from its private state (@cumem/memory's bufferState), never through property lookup on the
// instance. Buffers are ordinary extensible objects since issue 26 dropped their
// Object.preventExtensions (~25 ns of every allocate); these tests are what makes that safe.
import { expect } from 'vitest';

/** The prototypes of `object` from its own up to, not including, Object.prototype. */
function* prototypesOf(object: object): Generator<object> {
  for (let proto = Object.getPrototypeOf(object); proto !== null && proto !== Object.prototype; ) {
    yield proto;
    proto = Object.getPrototypeOf(proto);
  }
}

/**
 * Defines, on `buffer` itself, an accessor over every string-keyed member its prototypes declare
 * (getters, setters and methods of Buffer, ManagedBuffer, BufferBase, ...; not `constructor` nor
 * Object.prototype's). Reading one pushes its name onto `reads` and throws `shadow read: <name>`;
 * assigning one pushes `<name>=` and throws. The properties are configurable (see
 * {@link unshadow}). @returns `buffer`.
 * @throws TypeError while `buffer` is not extensible.
 */
export function shadowEveryMember<T extends object>(buffer: T, reads: string[]): T {
  const names = new Set<string>();
  for (const proto of prototypesOf(buffer)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  for (const name of names) {
    Object.defineProperty(buffer, name, {
      configurable: true,
      get() {
        reads.push(name);
        throw new Error(`shadow read: ${name}`);
      },
      set() {
        reads.push(`${name}=`);
        throw new Error(`shadow write: ${name}`);
      },
    });
  }
  return buffer;
}

/** Deletes every own string-keyed property of `buffer` (what {@link shadowEveryMember} defined). @returns `buffer`. */
export function unshadow<T extends object>(buffer: T): T {
  for (const name of Object.getOwnPropertyNames(buffer)) {
    delete (buffer as Record<string, unknown>)[name];
  }
  return buffer;
}

/** The member `key` of the first prototype of `object` that declares it. */
function inherited(object: object, key: PropertyKey): PropertyDescriptor | undefined {
  for (const proto of prototypesOf(object)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    if (descriptor !== undefined) return descriptor;
  }
  return undefined;
}

/**
 * `target` as its prototypes see it, past any own property: reading a member calls the getter
 * (or binds the method) its class declares, with `target` itself as the receiver, and assigning
 * one calls the setter, as `Buffer.prototype.copyFrom.call(buffer, src)` would. For calling
 * members of a shadowed buffer only: the returned Proxy is no Buffer, so never pass it to cumem.
 */
export function viaPrototype<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, key) {
      const member = inherited(object, key);
      if (member?.get !== undefined) return member.get.call(object);
      return typeof member?.value === 'function' ? member.value.bind(object) : member?.value;
    },
    set(object, key, value) {
      const member = inherited(object, key);
      if (member?.set === undefined) return false;
      member.set.call(object, value);
      return true;
    },
  });
}

/** What a {@link ShadowScope} closes at its end. */
export interface Closable {
  close(): void;
}

/**
 * The buffers of one test: {@link act} runs an operation while every buffer added is shadowed and
 * requires that it read none of their members; the scope's end closes everything (`using`).
 */
export class ShadowScope implements Disposable {
  /** The members the last {@link act} read through a buffer (empty unless cumem reads one). */
  readonly reads: string[] = [];
  readonly #objects: { readonly object: Closable; readonly shadow: boolean }[] = [];

  /** Shadows `buffer` during every later {@link act}; closes it at the end. @returns `buffer`. */
  add<T extends Closable>(buffer: T): T {
    this.#objects.push({ object: buffer, shadow: true });
    return buffer;
  }

  /** Closes `object` at the end, without shadowing it (streams, resources, other packages' objects). @returns `object`. */
  closeLater<T extends Closable>(object: T): T {
    this.#objects.push({ object, shadow: false });
    return object;
  }

  /**
   * Shadows every buffer added, runs `operation` (which calls their members through
   * {@link viaPrototype}), removes the shadows, and requires that no member was read through a
   * buffer. The shadows are gone afterwards, so the caller checks the effects with the plain API.
   * @returns what `operation` returned.
   */
  act<R>(operation: () => R): R {
    this.reads.length = 0;
    const shadowed = this.#objects.filter((entry) => entry.shadow).map((entry) => entry.object);
    for (const buffer of shadowed) shadowEveryMember(buffer, this.reads);
    let result: R;
    try {
      result = operation();
    } finally {
      for (const buffer of shadowed) unshadow(buffer);
    }
    expect(this.reads, 'members read through a buffer instead of its private state').toEqual([]);
    return result;
  }

  /** Closes everything added, the last added first. */
  [Symbol.dispose](): void {
    for (const { object, shadow } of this.#objects.reverse()) {
      if (shadow) unshadow(object);
      object.close();
    }
  }
}
