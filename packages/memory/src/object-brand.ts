// The one test of "is this a real cumem object": a private field of the class (`#x in value`)
// or membership of a WeakSet that only the class's own construction path fills. A shape test accepts any object with the right property names,
// and `instanceof` accepts `Object.create(realObject)` and Proxies of real objects, whose
// getters then name memory the caller never owned (issue 21: 64 KiB of an allocation the
// program never passed reached a copy's destination). Neither passes this check: a Proxy and an
// object inheriting from a real one are different objects, and private fields are not inherited
// nor seen through a Proxy.
import { describeValue } from '@cumem/core-types';

/**
 * The brand of one kind of cumem object (Buffer, CudaBuffer, StridedMemoryView, ...): the set
 * of objects its own constructor made. For the packages above `@cumem/memory`, which brand
 * their own classes with it, and for adapters of other libraries; checking costs one WeakSet
 * lookup and no driver call.
 */
export class ObjectBrand<T extends object> {
  readonly #members = new WeakSet<object>();
  readonly #test: (value: object) => boolean;
  /** The type name used in errors, e.g. `'Buffer of @cumem/memory'`. */
  readonly typeName: string;

  /**
   * @param typeName the name errors use for a member, e.g. `'Buffer of @cumem/memory'`.
   * @param privateTest for a class with private state: `(value) => #field in value`, true only
   *   for objects the class constructed (cheaper than the WeakSet, which is used when omitted).
   */
  constructor(typeName: string, privateTest?: (value: object) => boolean) {
    this.typeName = typeName;
    const members = this.#members;
    this.#test = privateTest ?? ((value) => members.has(value));
  }

  /** Records `object` as a member (brands without a private test): only the class's own constructor calls this. */
  mark(object: T): void {
    this.#members.add(object);
  }

  /** True for a member: an object the class made, not a copy, a Proxy or an object inheriting from one. */
  has(value: unknown): value is T {
    return typeof value === 'object' && value !== null && this.#test(value);
  }

  /**
   * `value` when it is a member.
   * @param name the argument's name in the error (`'srcs[3]'`).
   * @throws TypeError naming the argument and what it got otherwise.
   */
  check(value: unknown, name: string): T {
    if (typeof value === 'object' && value !== null && this.#test(value)) return value as T;
    throw new TypeError(`${name} must be a ${this.typeName}, got ${describeValue(value)}${imitation(value)}`);
  }
}

// Say why a lookalike is refused: its getters are not where cumem reads a buffer's facts.
function imitation(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  return ' (an object shaped like one, a Proxy or an object inheriting from one is not accepted)';
}
