// What `util.inspect` and `String()` show of one of the package's objects: its kind and a few
// facts a reader can act on (size, device, address, closed or not), never the driver's internal
// state, which a plain object dump would print. Every package of cumem describes its objects so.
import { type InspectOptionsStylized, inspect, type inspect as nodeInspect } from 'node:util';

/** `util.inspect.custom`, the key of the method `util.inspect` calls. */
export const inspectCustom: typeof inspect.custom = inspect.custom;

/** The facts shown of one object, in the order given. */
export type ObjectFacts = Readonly<Record<string, string | number | boolean | null>>;

/** `Kind(key: value, ...)`: what `toString()` returns. */
export function factsText(kind: string, facts: ObjectFacts): string {
  const parts = Object.entries(facts).map(([key, value]) => `${key}: ${value}`);
  return `${kind}(${parts.join(', ')})`;
}

/**
 * `Kind { key: value, ... }`, styled as `util.inspect` styles its values: what a class's
 * `[util.inspect.custom](depth, options, inspect)` returns. Below the depth asked, `[Kind]`.
 */
export function inspectFacts(
  kind: string,
  facts: ObjectFacts,
  depth: number,
  options: InspectOptionsStylized,
  inspectValue: typeof nodeInspect,
): string {
  if (depth < 0) return options.stylize(`[${kind}]`, 'special');
  return `${kind} ${inspectValue({ ...facts }, { ...options, depth: 0 })}`;
}

/**
 * What `toString` and `util.inspect` show of an object that only looks like a `kind` (one
 * inheriting from a real one, or a Proxy of one): it has none of the facts, and describing it
 * must not throw.
 */
export function imitationText(kind: string): string {
  return `[${kind} imitation]`;
}

/** `0x…` of an address or handle. */
export function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}
