// Values read from the driver once and kept: a device's launch limits, a kernel function's
// limits. The one shape of cache the package uses: made on first use of their key by a function
// given once, and dropped with the key's object (or its driver).
import type { Driver } from '@cumem/core-types';

/** A value per object key, made by `make` on first use, kept while the key lives. */
export class Memo<K extends object, V> {
  readonly #values = new WeakMap<K, V>();
  readonly #make: (key: K) => V;

  constructor(make: (key: K) => V) {
    this.#make = make;
  }

  get(key: K): V {
    let value = this.#values.get(key);
    if (value === undefined) {
      value = this.#make(key);
      this.#values.set(key, value);
    }
    return value;
  }
}

/** A value per driver and key (a device ordinal, a `CUfunction`), made by `make` on first use. */
export class DriverMemo<K, V> {
  readonly #drivers = new Memo<Driver, Map<K, V>>(() => new Map());
  readonly #make: (driver: Driver, key: K) => V;

  constructor(make: (driver: Driver, key: K) => V) {
    this.#make = make;
  }

  get(driver: Driver, key: K): V {
    const values = this.#drivers.get(driver);
    let value = values.get(key);
    if (value === undefined) {
      value = this.#make(driver, key);
      values.set(key, value);
    }
    return value;
  }
}
