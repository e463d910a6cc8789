// What `util.inspect` and `String()` show of one of the package's objects: its kind and a few
// facts a reader can act on (size, device, address, closed or not), never the driver's internal
// state, which a plain object dump would print. Every package of cumem describes its objects so.
import { type InspectOptionsStylized, inspect, type inspect as nodeInspect } from 'node:util';

/** `util.inspect.custom`, the key of the method `util.inspect` calls. */
export const inspectCustom: typeof inspect.custom = inspect.custom;

/** The facts shown of one object, in the order given. */
export type ObjectFacts = Readonly<Record<string, string | number | boolean | null>>;

// `Kind(key: value, ...)`: what `toString()` returns.
function factsText(kind: string, facts: ObjectFacts): string {
  const parts = Object.entries(facts).map(([key, value]) => `${key}: ${value}`);
  return `${kind}(${parts.join(', ')})`;
}

// `Kind { key: value, ... }`, styled as `util.inspect` styles its values: what
// `[util.inspect.custom](depth, options, inspect)` returns. Below the depth asked, `[Kind]`.
function inspectFacts(
  kind: string,
  facts: ObjectFacts,
  depth: number,
  options: InspectOptionsStylized,
  inspectValue: typeof nodeInspect,
): string {
  if (depth < 0) return options.stylize(`[${kind}]`, 'special');
  return `${kind} ${inspectValue({ ...facts }, { ...options, depth: 0 })}`;
}

// What `toString` and `util.inspect` show of an object that only looks like a `kind` (one
// inheriting from a real one, or a Proxy of one): it has none of the facts, and describing it
// must not throw.
function imitationText(kind: string): string {
  return `[${kind} imitation]`;
}

/**
 * How `toString` and `util.inspect` describe the instances of one class, made once per class
 * from its kind, its brand check and its facts: the two forms, the rule for an imitation and
 * the depth cut-off live here, and each of the class's two members is one call.
 *
 * ```ts
 * class Reader {
 *   static readonly #description = objectDescription('Reader', Reader.isReader, (reader) => ({
 *     position: reader.#position,
 *   }));
 *
 *   toString(): string {
 *     return Reader.#description.text(this);
 *   }
 *
 *   [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
 *     return Reader.#description.inspect(this, depth, options, nodeInspect);
 *   }
 * }
 * ```
 */
export interface ObjectDescription {
  /**
   * `Kind(key: value, ...)` of an instance; of anything else (a Proxy of one, an object
   * inheriting from one, which has none of the facts) `[Kind imitation]`.
   */
  text(value: unknown): string;
  /**
   * `Kind { key: value, ... }` of an instance, styled as `util.inspect` styles its values, given
   * the arguments it passes to `[util.inspect.custom]`; below the depth asked, `[Kind]`; of
   * anything else `[Kind imitation]`.
   */
  inspect(
    value: unknown,
    depth: number,
    options: InspectOptionsStylized,
    inspectValue: typeof nodeInspect,
  ): string;
}

/**
 * The {@link ObjectDescription} of the instances of one class.
 *
 * @param kind - The name shown: the class's, or, for a class whose instances go by their
 *   subclass's name, a function of the value described. That function is called on imitations
 *   too, so it must not throw.
 * @param isKind - The class's brand check (one private-field test), which a Proxy of an
 *   instance and an object inheriting from one fail.
 * @param facts - The facts of an instance, in the order shown. It is called only on a value
 *   `isKind` accepted, so it may read private fields; it is written inside the class body (a
 *   static field's initializer) for that reason.
 */
export function objectDescription<T>(
  kind: string | ((value: unknown) => string),
  isKind: (value: unknown) => value is T,
  facts: (instance: T) => ObjectFacts,
): ObjectDescription {
  const kindOf = typeof kind === 'string' ? () => kind : kind;
  return {
    text: (value) => (isKind(value) ? factsText(kindOf(value), facts(value)) : imitationText(kindOf(value))),
    inspect: (value, depth, options, inspectValue) =>
      isKind(value)
        ? inspectFacts(kindOf(value), facts(value), depth, options, inspectValue)
        : imitationText(kindOf(value)),
  };
}

/** `0x…` of an address or handle. */
export function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}
