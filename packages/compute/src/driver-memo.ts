// Values read from the driver once and kept: a device's launch limits, a kernel function's
// limits. The one shape of cache the package uses: made on first use of their key by a function
// given once, and dropped with their driver.
import type { Driver } from '@cumem/core-types';

/** A value per driver and key (a device ordinal, a `CUfunction`), made by `make` on first use. */
export class DriverMemo<K, V> {
  // Per driver: two drivers may hand out equal handles and ordinals for different things.
  readonly #drivers = new WeakMap<Driver, Map<K, V>>();
  readonly #make: (driver: Driver, key: K) => V;

  constructor(make: (driver: Driver, key: K) => V) {
    this.#make = make;
  }

  get(driver: Driver, key: K): V {
    let values = this.#drivers.get(driver);
    if (values === undefined) {
      values = new Map();
      this.#drivers.set(driver, values);
    }
    let value = values.get(key);
    if (value === undefined) {
      value = this.#make(driver, key);
      values.set(key, value);
    }
    return value;
  }
}
