import type { CreateDriver, Driver } from '@cumem/core-types';
import { describe, it } from 'vitest';

/** One driver a suite runs against. */
export interface TestDriver {
  /** `'reference'`, `'ffi'`, `'napi'`, or the name a conformance suite was given. */
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

/**
 * Makes the driver once and checks it has a device. A missing factory, a failing load or zero
 * devices give an entry with a `skipReason` instead of an error, so the suite can say why.
 */
export function probeDriver(name: string, create: CreateDriver | undefined, isReference = false): TestDriver {
  if (!create) return unavailable(name, isReference, `the ${name} adapter is not passed to this suite`);
  let driver: Driver;
  try {
    driver = create();
    const count = driver.deviceGetCount();
    if (count < 1) return unavailable(name, isReference, 'the driver reports no CUDA device');
  } catch (error) {
    return unavailable(name, isReference, `no usable GPU driver: ${(error as Error).message.split('\n')[0]}`);
  }
  return { name, isReference, driver, skipReason: undefined };
}

function unavailable(name: string, isReference: boolean, skipReason: string): TestDriver {
  return {
    name,
    isReference,
    skipReason,
    get driver(): Driver {
      throw new Error(skipReason);
    },
  };
}

/**
 * Registers `body` in a `describe` named `title`, or — when `reason` says the driver cannot run
 * — a skipped block with the reason in its name. Under {@link gpuRequired} a real (non-reference)
 * driver that cannot run fails instead, unless the reason starts with 'not applicable:'.
 */
export function describeGated(
  entry: TestDriver,
  title: string,
  reason: string | undefined,
  body: () => void,
): void {
  if (reason === undefined) {
    describe(title, body);
  } else if (gpuRequired && !entry.isReference && !reason.startsWith('not applicable:')) {
    describe(title, () => {
      it('runs on a GPU (CUMEM_REQUIRE_GPU=1)', () => {
        throw new Error(`required GPU driver unavailable: ${reason}`);
      });
    });
  } else {
    announceSkip(entry.name, reason);
    describe.skip(`${title} — skipped: ${reason}`, body);
  }
}

const announced = new Set<string>();

// The default reporter shows skipped blocks only as a count, so each test file says once, on
// stderr, which driver's cases it skips and why (e.g. no libcuda.so.1 on a CI machine).
function announceSkip(driverName: string, reason: string): void {
  const key = `${driverName}\0${reason}`;
  if (announced.has(key)) return;
  announced.add(key);
  process.stderr.write(`cumem tests: ${driverName} cases skipped — ${reason}\n`);
}
