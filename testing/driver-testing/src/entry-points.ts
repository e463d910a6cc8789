// Every public entry point of a package as something a fuzz test can call with any arguments:
// exported functions, constructors, static methods, and the methods, getters and setters of
// instances made by the caller's factories (a fresh instance per call).

/** One callable entry point. */
export interface EntryPoint {
  /** E.g. `Buffer.prototype.copyTo`, `new Stream`, `readRecordBatch`. */
  readonly name: string;
  /** The exported name it belongs to (the function, or the class). */
  readonly owner: string;
  /** The static or instance member, or undefined for a function or constructor. */
  readonly member?: string;
  /** Calls it with `args` (a setter takes `args[0]`, a getter ignores them). */
  call(args: readonly unknown[]): unknown;
}

type AnyFunction = (...args: unknown[]) => unknown;

function isClass(value: AnyFunction): boolean {
  return /^class\b/.test(Function.prototype.toString.call(value));
}

function instanceMembers(factory: () => object, label: string): EntryPoint[] {
  const entries: EntryPoint[] = [];
  const seen = new Set<string>(['constructor']);
  for (let proto = Object.getPrototypeOf(factory()); proto && proto !== Object.prototype; ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (seen.has(key) || key.startsWith('_')) continue;
      seen.add(key);
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (!descriptor) continue;
      const name = `${label}.prototype.${key}`;
      const of = { owner: label, member: key };
      if (typeof descriptor.value === 'function') {
        entries.push({
          ...of,
          name,
          call: (args) => (factory() as Record<string, AnyFunction>)[key]?.(...args),
        });
      }
      if (descriptor.get)
        entries.push({ ...of, name: `get ${name}`, call: () => (factory() as Record<string, unknown>)[key] });
      if (descriptor.set) {
        entries.push({
          ...of,
          name: `set ${name}`,
          call: (args) => {
            (factory() as Record<string, unknown>)[key] = args[0];
          },
        });
      }
    }
    proto = Object.getPrototypeOf(proto);
  }
  return entries;
}

/**
 * The entry points of `exports` (a module namespace). `instances` maps a class name to a
 * factory of valid instances, whose methods and accessors are then included. `internal`
 * lists what is not public API though JavaScript can reach it (TypeScript `private` and
 * `protected` members, members and exported functions tagged internal in their doc comment, by
 * name, and `'new X'` for constructors that are): left out.
 *
 * (The tag is not spelled out above on purpose: `stripInternal` drops any declaration whose doc
 * comment contains it, even inside backticks, which would strip this function from the
 * published `@cumem/testing/vitest` types.)
 */
export function entryPointsOf(
  exports: Record<string, unknown>,
  instances: Record<string, () => object> = {},
  internal: ReadonlySet<string> = new Set(),
): EntryPoint[] {
  const entries: EntryPoint[] = [];
  for (const [exportName, value] of Object.entries(exports)) {
    if (typeof value !== 'function') continue;
    const fn = value as AnyFunction;
    if (!isClass(fn)) {
      entries.push({ name: exportName, owner: exportName, call: (args) => fn(...args) });
      continue;
    }
    entries.push({
      name: `new ${exportName}`,
      owner: exportName,
      call: (args) => Reflect.construct(fn, args),
    });
    for (const key of Object.getOwnPropertyNames(fn)) {
      if (['length', 'name', 'prototype'].includes(key)) continue;
      const member = Object.getOwnPropertyDescriptor(fn, key)?.value;
      if (typeof member === 'function') {
        entries.push({
          name: `${exportName}.${key}`,
          owner: exportName,
          member: key,
          call: (args) => (member as AnyFunction).apply(fn, [...args]),
        });
      }
    }
    const factory = instances[exportName];
    if (factory) entries.push(...instanceMembers(factory, exportName));
  }
  return entries.filter((entry) => !internal.has(entry.member ?? entry.name));
}
