import type { CreateDriver, Driver } from '@cumem/core-types';
import { describe, it } from 'vitest';
import { createReferenceDriver } from './reference-driver.js';

/** The real adapters a test file can run against; each package's test passes the ones it imports. */
export interface AdapterFactories {
  readonly ffi?: CreateDriver;
  readonly napi?: CreateDriver;
}

/** One driver a suite runs against. */
export interface TestDriver {
  /** `'reference'`, `'ffi'` or `'napi'`. */
  readonly name: string;
  /** True for the host-memory reference driver, which runs on every machine. */
  readonly isReference: boolean;
  /** The driver; reading it when the driver is unavailable throws {@link skipReason}. */
  readonly driver: Driver;
  /** Why this driver cannot run here, or undefined when it can. */
  readonly skipReason: string | undefined;
}

/**
 * True when GPU cases must not be skipped (`pnpm test:gpu` sets CUMEM_REQUIRE_GPU=1): an
 * unavailable adapter then fails its suite instead of skipping it.
 */
export const gpuRequired = process.env.CUMEM_REQUIRE_GPU === '1';

function wanted(name: string): boolean {
  const list = process.env.CUMEM_TEST_DRIVERS;
  return !list || list.split(',').map((s) => s.trim()).includes(name);
}

function probe(name: string, create: CreateDriver | undefined): TestDriver {
  if (!create) return unavailable(name, `the ${name} adapter is not passed to this suite`);
  let driver: Driver;
  try {
    driver = create();
    const count = driver.deviceGetCount();
    if (count < 1) return unavailable(name, 'the driver reports no CUDA device');
  } catch (error) {
    return unavailable(name, `no usable GPU driver: ${(error as Error).message.split('\n')[0]}`);
  }
  return { name, isReference: false, driver, skipReason: undefined };
}

function unavailable(name: string, skipReason: string): TestDriver {
  return {
    name,
    isReference: false,
    skipReason,
    get driver(): Driver {
      throw new Error(skipReason);
    },
  };
}

const probed = new Map<string, TestDriver>();

/**
 * The drivers to test with: the reference driver (always), then each adapter given, probed
 * once per test file. `CUMEM_TEST_DRIVERS=ffi,napi` narrows the list.
 */
export function driverMatrix(adapters: AdapterFactories, options: { gpuOnly?: boolean } = {}): TestDriver[] {
  const result: TestDriver[] = [];
  if (!options.gpuOnly && wanted('reference')) {
    result.push({ name: 'reference', isReference: true, driver: createReferenceDriver(), skipReason: undefined });
  }
  for (const name of ['ffi', 'napi'] as const) {
    if (!wanted(name)) continue;
    let entry = probed.get(name);
    if (!entry) {
      entry = probe(name, adapters[name]);
      probed.set(name, entry);
    }
    result.push(entry);
  }
  return result;
}

/**
 * Registers `body` once per driver of {@link driverMatrix}, in a `describe` named
 * `title [driver]`. An unavailable driver's block is skipped, with the reason in its name, or
 * fails when {@link gpuRequired}. `requires` may name a capability the driver lacks: that block
 * is skipped with the returned reason (never silently), also under `pnpm test:gpu` only if the
 * reason starts with 'not applicable:'.
 *
 * Use `driver` inside hooks and tests only, never while collecting.
 */
export function describeEachDriver(
  adapters: AdapterFactories,
  title: string,
  body: (entry: TestDriver) => void,
  options: { gpuOnly?: boolean; requires?: (driver: Driver) => string | undefined } = {},
): void {
  for (const entry of driverMatrix(adapters, options)) {
    describeWithDriver(entry, title, body, options.requires);
  }
}

function describeWithDriver(
  entry: TestDriver,
  title: string,
  body: (entry: TestDriver) => void,
  requires?: (driver: Driver) => string | undefined,
): void {
  const name = `${title} [${entry.name}]`;
  let reason = entry.skipReason;
  if (reason === undefined && requires) reason = requires(entry.driver);
  if (reason === undefined) {
    describe(name, () => body(entry));
  } else if (gpuRequired && !entry.isReference && !reason.startsWith('not applicable:')) {
    describe(name, () => {
      it('runs on a GPU (CUMEM_REQUIRE_GPU=1)', () => {
        throw new Error(`required GPU driver unavailable: ${reason}`);
      });
    });
  } else {
    describe.skip(`${name} — skipped: ${reason}`, () => body(entry));
  }
}
