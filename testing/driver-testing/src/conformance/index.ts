import type { CreateDriver, EntryPointMode } from '@cumem/core-types';
import { describeGated, probeDriver } from '../driver-gate.js';
import { allocationCases } from './allocation.js';
import { batchCases } from './batch.js';
import { computeCases } from './compute.js';
import { contextCases } from './contexts.js';
import { copyCases } from './copies.js';
import { deviceOrdinalCases } from './device-ordinals.js';
import { deviceCases } from './devices.js';
import { errorCases } from './errors.js';
import { hostRegistrationCases } from './host-registration.js';
import { ipcCases } from './ipc.js';
import { legacyCases } from './legacy.js';
import { managedCases } from './managed.js';
import { nativeExchangeCases } from './native-exchange.js';
import { peerCases } from './peers.js';
import { pointerCases } from './pointers.js';
import { poolQueryCases } from './pool-queries.js';
import { poolCases } from './pools.js';
import { streamEventCases } from './streams-events.js';
import { createSuiteContext } from './suite-context.js';
import { virtualMemoryCases } from './virtual-memory.js';

/** Options of {@link driverConformanceSuite}. */
export interface ConformanceOptions {
  /** Ordinal of the device the suite runs on. Default 0. */
  readonly device?: number;
  /**
   * Also check the adapter made with `create({ entryPoints: 'legacy' })`: reduced capabilities,
   * NotSupportedError for host NUMA locations and batch calls, Device/Host forms still working.
   * Default true.
   */
  readonly legacyEntryPoints?: boolean;
  /** The `entryPoints` mode `create()` makes its drivers in (its capabilities are checked against it). Default 'auto'. */
  readonly entryPoints?: EntryPointMode;
}

/**
 * Registers `describe('Driver conformance [<name>]')`: every member of the Driver contract,
 * success and documented failure cases, with the data checked. Each adapter's test file calls
 * it once with its factory:
 *
 * ```ts
 * import { driverConformanceSuite } from '@cumem/testing/vitest';
 * driverConformanceSuite('ffi', createDriver);
 * ```
 *
 * A name starting with `'reference'` is the host-memory reference driver and always runs. Any
 * other driver is made once and asked for its device count: with no driver or no device the
 * block is skipped with the reason in its title, or fails when CUMEM_REQUIRE_GPU=1. Cases that
 * need a capability the driver lacks are skipped one by one, the flag named in their titles.
 * Every assertion holds on a real CUDA 13 driver too; error codes are pinned only where cuda.h
 * documents them for the case.
 */
export function driverConformanceSuite(
  name: string,
  create: CreateDriver | undefined,
  options: ConformanceOptions = {},
): void {
  const device = options.device ?? 0;
  const entry = probeDriver(name, create, name.startsWith('reference'));
  let reason = entry.skipReason;
  if (reason === undefined && device >= entry.driver.deviceGetCount()) {
    reason = `not applicable: the driver has no device ${device}`;
  }
  describeGated(entry, `Driver conformance [${name}]`, reason, () => {
    const suite = createSuiteContext(entry, create ?? missingFactory, device, options.entryPoints ?? 'auto');
    errorCases(suite);
    deviceCases(suite);
    contextCases(suite);
    streamEventCases(suite);
    poolCases(suite);
    allocationCases(suite);
    copyCases(suite);
    managedCases(suite);
    batchCases(suite);
    pointerCases(suite);
    ipcCases(suite);
    peerCases(suite);
    hostRegistrationCases(suite);
    deviceOrdinalCases(suite);
    poolQueryCases(suite);
    computeCases(suite);
    virtualMemoryCases(suite);
    nativeExchangeCases(suite);
    if (options.legacyEntryPoints !== false) legacyCases(suite);
  });
}

function missingFactory(): never {
  throw new Error('no driver factory was passed to driverConformanceSuite');
}
