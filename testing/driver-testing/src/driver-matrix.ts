import type { CreateDriver, Driver } from '@cumem/core-types';
import { describeGated, gpuRequired, probeDriver, type TestDriver } from './driver-gate.js';
import { createReferenceDriver } from './reference-driver.js';

export { gpuRequired, type TestDriver };

/** The real adapters a test file can run against; each package's test passes the ones it imports. */
export interface AdapterFactories {
  readonly ffi?: CreateDriver;
  readonly napi?: CreateDriver;
}

function wanted(name: string): boolean {
  const list = process.env.CUMEM_TEST_DRIVERS;
  return (
    !list ||
    list
      .split(',')
      .map((s) => s.trim())
      .includes(name)
  );
}

const probed = new Map<string, TestDriver>();

/**
 * The drivers to test with: the reference driver (always), then each adapter given, probed
 * once per test file. `CUMEM_TEST_DRIVERS=ffi,napi` narrows the list.
 */
export function driverMatrix(adapters: AdapterFactories, options: { gpuOnly?: boolean } = {}): TestDriver[] {
  const result: TestDriver[] = [];
  if (!options.gpuOnly && wanted('reference')) {
    result.push({
      name: 'reference',
      isReference: true,
      driver: createReferenceDriver(),
      skipReason: undefined,
    });
  }
  for (const name of ['ffi', 'napi'] as const) {
    if (!wanted(name)) continue;
    let entry = probed.get(name);
    if (!entry) {
      entry = probeDriver(name, adapters[name]);
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
  let reason = entry.skipReason;
  if (reason === undefined && requires) reason = requires(entry.driver);
  describeGated(entry, `${title} [${entry.name}]`, reason, () => body(entry));
}

/**
 * Like {@link describeEachDriver} for cases that need `deviceCount` devices: the reference
 * driver made with that many devices (always runs), then each adapter, whose block is skipped
 * as `not applicable: needs <n> GPUs` on a machine with fewer (never failed by
 * `CUMEM_REQUIRE_GPU`, since the machine, not cumem, lacks them). `gpuOnly` leaves the reference out.
 */
export function describeEachDriverWithDevices(
  adapters: AdapterFactories,
  deviceCount: number,
  title: string,
  body: (entry: TestDriver) => void,
  options: { gpuOnly?: boolean; requires?: (driver: Driver) => string | undefined } = {},
): void {
  if (!options.gpuOnly && wanted('reference')) {
    const entry: TestDriver = {
      name: `reference, ${deviceCount} devices`,
      isReference: true,
      driver: createReferenceDriver({ deviceCount }),
      skipReason: undefined,
    };
    describeWithDriver(entry, title, body, options.requires);
  }
  const needs = (driver: Driver) =>
    driver.deviceGetCount() < deviceCount
      ? `not applicable: needs ${deviceCount} GPUs`
      : options.requires?.(driver);
  for (const entry of driverMatrix(adapters, { gpuOnly: true }))
    describeWithDriver(entry, title, body, needs);
}
