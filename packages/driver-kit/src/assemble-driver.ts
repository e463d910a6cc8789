// One shape for every adapter's Driver: a frozen plain object whose methods are own data
// properties and whose two accessors are getters. Wrappers (countingDriver, test proxies) then
// read every driver alike.
import type { Driver } from '@cumem/core-types';

/** The Driver's two accessors; every other member is a plain data property. */
export type DriverAccessors = 'driverVersion' | 'capabilities';

/**
 * Freezes `members` with `accessors`' getters added. The getters are defined after the object
 * exists, not written in its literal: an object literal with a `get` member is stored as a
 * slower dictionary of properties, and every call of a driver member reads from this object.
 */
export function assembleDriver(
  members: Omit<Driver, DriverAccessors>,
  accessors: Pick<Driver, DriverAccessors>,
): Driver {
  const driver = Object.defineProperties(members, Object.getOwnPropertyDescriptors(accessors));
  return Object.freeze(driver) as Driver;
}

/**
 * The members of a class-based driver (methods on its prototype chain, fields on the instance)
 * as own properties bound to it, ready for {@link assembleDriver}. Binding happens once, when
 * the driver is made; the instance's own laziness (nothing native until first use) is kept.
 */
export function bindMembers(source: Driver): Omit<Driver, DriverAccessors> {
  const members: Record<string, unknown> = {};
  for (let level: object | null = source; level !== null && level !== Object.prototype; ) {
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(level))) {
      if (key === 'constructor' || key in members || key === 'driverVersion' || key === 'capabilities')
        continue;
      if (typeof descriptor.value === 'function') members[key] = descriptor.value.bind(source);
      else if ('value' in descriptor) members[key] = descriptor.value;
    }
    level = Object.getPrototypeOf(level) as object | null;
  }
  return members as unknown as Omit<Driver, DriverAccessors>;
}
