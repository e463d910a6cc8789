// Refusing lookalikes of the classes this package accepts. A Proxy of a Buffer or a view, or an
// object inheriting from one, passes `instanceof` and finds the class's members; their first
// private-field read would fail with the engine's own TypeError, which names neither the class nor
// the member. The members of this package's own classes are guarded by core-types' guardMembers
// (strided-layout.ts, strided-memory-view.ts); the importers, which take any value, tell a
// lookalike from a foreign array here.
import { type BrandedClass, describeValue } from '@cumem/core-types';
import { BufferBase } from '@cumem/memory';

/**
 * True when `value`'s prototype chain reaches `prototype`.
 * @throws TypeError naming `name` for a revoked Proxy (every later read of it would throw).
 */
function inherits(value: object, prototype: object, name: string): boolean {
  try {
    return Object.prototype.isPrototypeOf.call(prototype, value);
  } catch (error) {
    if (error instanceof TypeError && !isProxyAlive(value)) {
      throw new TypeError(`${name} is a revoked Proxy: nothing can be read from it`);
    }
    throw error;
  }
}

// A revoked Proxy throws on every operation, even on a trap-less one such as this.
function isProxyAlive(value: object): boolean {
  try {
    Reflect.isExtensible(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a Proxy of a Buffer (or of one of `classes`), or an object inheriting from one, once
 * the caller has found it is no member by brand: its methods would read another object's
 * private state, or fail on it.
 * @throws TypeError naming `name` and the class.
 */
export function refuseLookalike(value: unknown, name: string, classes: readonly BrandedClass[] = []): void {
  if (typeof value !== 'object' || value === null) return;
  for (const type of [{ name: 'Buffer', prototype: BufferBase.prototype }, ...classes]) {
    if (inherits(value, type.prototype, name)) {
      throw new TypeError(
        `${name} is a Proxy of a ${type.name} or an object inheriting from one (${describeValue(value)}): pass the ${type.name} itself`,
      );
    }
  }
}
