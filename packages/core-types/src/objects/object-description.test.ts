import { type InspectOptionsStylized, inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { objectDescription } from './object-description.js';

class Counter {
  static readonly #description = objectDescription('Counter', Counter.isCounter, (counter) => ({
    count: counter.#count,
    label: counter.#label,
  }));
  #count = 2;
  #label: string | null = null;

  static isCounter(value: unknown): value is Counter {
    return typeof value === 'object' && value !== null && #count in value;
  }

  toString(): string {
    return Counter.#description.text(this);
  }

  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Counter.#description.inspect(this, depth, options, nodeInspect);
  }
}

// Described by the name of the subclass an instance was made of, as a resource a user derives is.
class Base {
  static readonly #description = objectDescription(
    (value) => (value as object).constructor.name,
    Base.isBase,
    (base) => ({ open: base.#open }),
  );
  #open = true;

  static isBase(value: unknown): value is Base {
    return typeof value === 'object' && value !== null && #open in value;
  }

  toString(): string {
    return Base.#description.text(this);
  }

  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Base.#description.inspect(this, depth, options, nodeInspect);
  }
}

class Derived extends Base {}

describe('objectDescription', () => {
  it('gives toString `Kind(key: value, ...)` and util.inspect `Kind { key: value, ... }`', () => {
    const counter = new Counter();
    expect(String(counter)).toBe('Counter(count: 2, label: null)');
    expect(inspect(counter)).toBe('Counter { count: 2, label: null }');
  });

  it('shows the kind alone below the depth asked', () => {
    expect(inspect({ a: new Counter() }, { depth: 0 })).toBe('{ a: [Counter] }');
  });

  it('describes a Proxy of one or an object inheriting from one as an imitation, without reading facts', () => {
    for (const imitation of [Object.create(new Counter()), new Proxy(new Counter(), {})]) {
      expect(String(imitation)).toBe('[Counter imitation]');
      expect(inspect(imitation)).toBe('[Counter imitation]');
    }
  });

  it('names an instance, and an imitation, by the kind function when given one', () => {
    expect(String(new Derived())).toBe('Derived(open: true)');
    expect(inspect(new Derived())).toBe('Derived { open: true }');
    expect(String(new Base())).toBe('Base(open: true)');
    expect(String(Object.create(new Derived()))).toBe('[Derived imitation]');
  });
});
