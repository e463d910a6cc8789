import type { Driver } from '@cumem/core-types';
import { countingDriver, type DriverCallLog } from '@cumem/testing';

/**
 * Runs `body` with a counting driver over `base` in use, then puts `base` back in use (also when
 * `body` throws or its promise rejects). `use` puts a driver in use: @cumem/memory's `useDriver`
 * (passed in, so that memory's own tests hand in the module they test).
 */
export function withCountingDriver<T>(
  use: (driver: Driver) => unknown,
  base: Driver,
  body: (log: DriverCallLog, driver: Driver) => T,
): T {
  const { driver, log } = countingDriver(base);
  use(driver);
  let result: T;
  try {
    result = body(log, driver);
  } catch (error) {
    use(base);
    throw error;
  }
  if (result instanceof Promise) return result.finally(() => use(base)) as T;
  use(base);
  return result;
}
