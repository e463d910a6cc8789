// The one test of "is this a real cumem object": a private field of the class (`#x in value`),
// which only the class's own constructor can give an object. A shape test accepts any object
// with the right property names, and `instanceof` accepts `Object.create(realObject)` and Proxies of real objects, whose
// getters then name memory the caller never owned (issue 21: 64 KiB of an allocation the
// program never passed reached a copy's destination). Neither passes this check: private fields
// are not inherited nor seen through a Proxy.
import { describeValue } from '@cumem/core-types';

/**
 * The brand of one kind of cumem object (Buffer, CudaBuffer, StridedMemoryView, ...): the set
 * of objects its own constructor made. For the packages above `@cumem/memory`, which brand
 * their own classes with it, and for adapters of other libraries; checking costs one
 * private-field test and no driver call.
 */
export class ObjectBrand<T extends object> {
  readonly #test: (value: object) => boolean;
  /** The type name used in errors, e.g. `'Buffer of @cumem/memory'`. */
  readonly typeName: string;

  /**
   * @param typeName the name errors use for a member, e.g. `'Buffer of @cumem/memory'`.
   * @param privateTest `(value) => #field in value`, written inside the class: true only for
   *   objects its constructor made (a private field is neither inherited nor seen through a
   *   Proxy, and no code outside the class can add one to an object).
   */
  constructor(typeName: string, privateTest: (value: object) => boolean) {
    this.typeName = typeName;
    this.#test = privateTest;
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
