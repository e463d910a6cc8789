// Multi-device tests that need peer access between devices 0 and 1.
import { expect, type TestContext } from 'vitest';

/**
 * Skips the test visibly (`pnpm test:gpu` counts skips) when `usable` is false: two GPUs without
 * peer access. The reference driver always grants peer access, so there a false `usable` fails
 * the test instead: a test must not pass there by skipping.
 */
export function skipWithoutPeerAccess(usable: boolean, driverName: string, context: TestContext): void {
  expect(usable || !driverName.startsWith('reference')).toBe(true);
  if (!usable) context.skip('not applicable: devices 0 and 1 have no peer access');
}
