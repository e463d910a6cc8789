// Shared by the test files only (not exported from the package).
import type { Driver } from '@cumem/core-types';
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';
import { useDriver } from '@cumem/memory';
import { Context } from '../src/context.js';

export { patternBytes } from '@cumem/test-support';

/** The adapters every test file of this package runs against (besides the reference driver). */
export const adapters = { ffi: createFfiDriver, napi: createNapiDriver };

/** Why a block needs a GPU driver with IPC, or undefined. */
export function requiresInterprocess(driver: Driver): string | undefined {
  return driver.capabilities.interprocess
    ? undefined
    : `the ${driver.name} driver has no CUDA IPC (capabilities.interprocess is false)`;
}

/** Byte equality of two views, fast (vitest's toEqual walks large typed arrays element by element). */
export function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return (
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ) === 0
  );
}

/** Puts `driver` in use for @cumem/memory and returns a Context on its device 0. */
export function contextWith(driver: Driver): Context {
  useDriver(driver);
  return new Context(0);
}
