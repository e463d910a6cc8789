import type { Driver } from '@cumem/core-types';

/** The calls a {@link countingDriver} has seen, in order, by member name. */
export interface DriverCallLog {
  readonly calls: string[];
  /** Forget the calls seen so far. */
  reset(): void;
}

/**
 * Wraps a driver so a test can assert what reached it — in particular that bad input is
 * refused before any driver call. Property reads (`name`, `capabilities`, ...) are not counted;
 * method calls are.
 */
export function countingDriver(inner: Driver): { driver: Driver; log: DriverCallLog } {
  const calls: string[] = [];
  const log: DriverCallLog = {
    calls,
    reset() {
      calls.length = 0;
    },
  };
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push(property);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, log };
}
