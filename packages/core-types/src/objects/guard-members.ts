// One brand check in front of every public method, getter and setter of a class. A Proxy of one
// of cumem's objects, or an object inheriting from one, passes `instanceof` and finds the
// class's members; without this check their first private-field read fails with the engine's
// TypeError ("Cannot read private member"), which names neither the class nor the member. The
// check is the class's own `isX` (one private-field test), applied once to the whole prototype
// rather than written into each member, so a member added later is covered without anyone
// remembering to. Every package of cumem guards its classes with this one function.
import { describeValue } from '../validate.js';

/** What a class gives {@link guardMembers}. */
export interface BrandedClass {
  /** The class's name, for errors. */
  readonly name: string;
  readonly prototype: object;
}

const imitationHint = ' (a Proxy of one, or an object inheriting from one, is not accepted)';

/** The TypeError for argument `name`, which should have been a `typeName` and is `value`. */
export function notBranded(name: string, typeName: string, value: unknown): TypeError {
  const hint = typeof value === 'object' && value !== null ? imitationHint : '';
  return new TypeError(`${name} must be a ${typeName}, got ${describeValue(value)}${hint}`);
}

/** The TypeError for `member` of `className` called on `receiver`, which is not one. */
export function wrongReceiver(className: string, member: string, receiver: unknown): TypeError {
  return new TypeError(
    `${className}.${member} was called on ${describeValue(receiver)}, which is not a ${className}${imitationHint}`,
  );
}

function memberName(key: string | symbol): string {
  return typeof key === 'symbol' ? `[${key.description ?? 'symbol'}]` : key;
}

// A wrapper of the method's own arity: `allocate`, `close` and `sync` are hot paths, and a
// fixed-arity call forwards its arguments without building an array.
function guardedMethod(
  method: (...args: unknown[]) => unknown,
  fail: (receiver: unknown) => never,
  isInstance: (value: unknown) => boolean,
): (...args: unknown[]) => unknown {
  switch (method.length) {
    case 0:
      return function (this: unknown, ...rest: unknown[]): unknown {
        if (!isInstance(this)) fail(this);
        return rest.length === 0 ? method.call(this) : Reflect.apply(method, this, rest);
      };
    case 1:
      return function (this: unknown, a: unknown, ...rest: unknown[]): unknown {
        if (!isInstance(this)) fail(this);
        return rest.length === 0 ? method.call(this, a) : Reflect.apply(method, this, [a, ...rest]);
      };
    case 2:
      return function (this: unknown, a: unknown, b: unknown, ...rest: unknown[]): unknown {
        if (!isInstance(this)) fail(this);
        return rest.length === 0 ? method.call(this, a, b) : Reflect.apply(method, this, [a, b, ...rest]);
      };
    default:
      return function (this: unknown, ...args: unknown[]): unknown {
        if (!isInstance(this)) fail(this);
        return Reflect.apply(method, this, args);
      };
  }
}

/**
 * Replaces each method, getter and setter of `type.prototype` (own members, symbols included,
 * but the constructor and `exempt`) by one that first checks `isInstance(this)` and throws a
 * TypeError naming the class and member otherwise. `exempt` lists the members the package calls
 * only on objects it has already checked (its internal ones) and those that must answer for any
 * receiver (`toString`, `util.inspect.custom`).
 */
export function guardMembers(
  type: BrandedClass,
  isInstance: (value: unknown) => boolean,
  exempt: readonly (string | symbol)[] = [],
): void {
  const prototype = type.prototype;
  for (const key of Reflect.ownKeys(prototype)) {
    if (key === 'constructor' || exempt.includes(key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key) as PropertyDescriptor;
    const name = memberName(key);
    const fail = (receiver: unknown): never => {
      throw wrongReceiver(type.name, name, receiver);
    };
    if (typeof descriptor.value === 'function') {
      const method = descriptor.value as (...args: unknown[]) => unknown;
      const guarded = guardedMethod(method, fail, isInstance);
      Object.defineProperty(guarded, 'name', { value: method.name });
      Object.defineProperty(guarded, 'length', { value: method.length });
      Object.defineProperty(prototype, key, { ...descriptor, value: guarded });
      continue;
    }
    const { get, set } = descriptor;
    if (get === undefined && set === undefined) continue;
    const guardedGet =
      get &&
      function (this: unknown): unknown {
        if (!isInstance(this)) fail(this);
        return get.call(this);
      };
    const guardedSet =
      set &&
      function (this: unknown, value: unknown): void {
        if (!isInstance(this)) fail(this);
        set.call(this, value);
      };
    Object.defineProperty(prototype, key, { ...descriptor, get: guardedGet, set: guardedSet });
  }
}
