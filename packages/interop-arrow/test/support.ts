// Shared by the test files only (not exported from the package).
import type { Driver } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { countingDriver, type DriverCallLog } from '@cumem/testing/vitest';
import { Context } from '../src/context/context.js';

// The adapters every test file of this package runs against (besides the reference driver).
export { adapters, patternBytes, sameBytes } from '@cumem/test-support';

/** Why a block needs a GPU driver with IPC, or undefined. */
export function requiresInterprocess(driver: Driver): string | undefined {
  return driver.capabilities.interprocess
    ? undefined
    : `the ${driver.name} driver has no CUDA IPC (capabilities.interprocess is false)`;
}

/** Puts `driver` in use for @cumem/memory and returns a Context on its device 0. */
export function contextWith(driver: Driver): Context {
  useDriver(driver);
  return new Context(0);
}

/** Puts a counting driver over `driver` in use; returns its call log and a Context on device 0. */
export function countedContext(driver: Driver): { log: DriverCallLog; context: Context } {
  const counted = countingDriver(driver);
  useDriver(counted.driver);
  return { log: counted.log, context: new Context(0) };
}
