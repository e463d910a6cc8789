import {
  type CreateDriver,
  type Driver,
  type DriverCapabilities,
  type DriverHandle,
  type EntryPointMode,
  StreamFlags,
} from '@cumem/core-types';
import { afterAll, beforeAll, it } from 'vitest';
import type { TestDriver } from '../driver-gate.js';

/** What every area of the conformance suite gets: the driver and the state made in `beforeAll`. */
export interface SuiteContext {
  /** The driver under test; use inside hooks and tests only. */
  readonly driver: Driver;
  /** The factory the suite was given (for the legacy entry points section). */
  readonly create: CreateDriver;
  /** Ordinal of the device the suite runs on. */
  readonly device: number;
  /** The driver is the host-memory reference driver (readable while collecting). */
  readonly isReference: boolean;
  /** The `entryPoints` mode the suite's driver was made in. */
  readonly mode: EntryPointMode;
  /** The device's primary context, current while the suite runs. */
  readonly context: DriverHandle;
  /** A non-blocking stream made for the suite. */
  readonly stream: DriverHandle;
  /**
   * Registers `body` as a case when the driver has `flag`, otherwise as a visibly skipped case
   * whose title says which capability is missing.
   */
  itWith(flag: keyof DriverCapabilities, title: string, body: () => unknown): void;
  /** Registers a case that needs `condition()` (read while collecting) to be undefined; else skipped with that reason. */
  itUnless(reason: () => string | undefined, title: string, body: () => unknown): void;
}

/**
 * Makes the suite's context and registers the hooks that retain the device's primary context,
 * make it current and create the suite's stream (and undo all three afterwards).
 */
export function createSuiteContext(
  entry: TestDriver,
  create: CreateDriver,
  device: number,
  mode: EntryPointMode,
): SuiteContext {
  let primary: DriverHandle | undefined;
  let stream: DriverHandle | undefined;
  let previous = 0n;

  beforeAll(() => {
    const driver = entry.driver;
    previous = driver.contextGetCurrent();
    primary = driver.primaryContextRetain(device);
    driver.contextSetCurrent(primary);
    stream = driver.streamCreate(StreamFlags.NonBlocking, 0);
  });

  afterAll(() => {
    if (entry.skipReason !== undefined || primary === undefined) return;
    const driver = entry.driver;
    driver.contextSetCurrent(primary);
    if (stream !== undefined) {
      driver.streamSynchronize(stream);
      driver.streamDestroy(stream);
    }
    driver.contextSetCurrent(previous);
    driver.primaryContextRelease(device);
  });

  // Capabilities are fixed once the driver has loaded, and the gate already loaded it, so
  // they can decide at collection time which cases run.
  const capabilities = (): DriverCapabilities | undefined =>
    entry.skipReason === undefined ? entry.driver.capabilities : undefined;

  return {
    get driver() {
      return entry.driver;
    },
    create,
    device,
    isReference: entry.isReference,
    mode,
    get context() {
      if (primary === undefined) throw new Error('the primary context is made in beforeAll');
      return primary;
    },
    get stream() {
      if (stream === undefined) throw new Error('the suite stream is made in beforeAll');
      return stream;
    },
    itWith(flag, title, body) {
      const available = capabilities();
      if (available && !available[flag]) it.skip(`${title} — skipped: driver lacks ${flag}`, body);
      else it(title, body);
    },
    itUnless(reason, title, body) {
      const why = entry.skipReason === undefined ? reason() : undefined;
      if (why !== undefined) it.skip(`${title} — skipped: ${why}`, body);
      else it(title, body);
    },
  };
}
