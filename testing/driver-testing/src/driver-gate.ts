import { closeSync, mkdirSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
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

// The default reporter shows skipped blocks only as a count, so the suite says on stderr which
// driver's cases it skips and why (e.g. no libcuda.so.1 on a CI machine) — once per vitest run,
// that is once per package, not once per test file: every file runs in a worker of the same
// vitest process, and the first worker to create the reason's marker file prints it.
function announceSkip(driverName: string, reason: string): void {
  const key = `${driverName}\0${reason}`;
  if (announced.has(key)) return;
  announced.add(key);
  if (!firstInThisRun(key)) return;
  process.stderr.write(
    `cumem tests: ${driverName} cases skipped in this package — ${reason} (each skipped block names the reason)\n`,
  );
}

/** True for the first worker of this vitest run to announce `key`. */
function firstInThisRun(key: string): boolean {
  // Worker threads share the vitest process's pid; forked workers are its children.
  const run = isMainThread ? process.ppid : process.pid;
  let hash = 0;
  for (let index = 0; index < key.length; index++) hash = (Math.imul(hash, 31) + key.charCodeAt(index)) | 0;
  const directory = join(tmpdir(), `cumem-test-skips-${run}`);
  try {
    mkdirSync(directory, { recursive: true });
    closeSync(openSync(join(directory, (hash >>> 0).toString(16)), 'wx'));
    return true;
  } catch (error) {
    // EEXIST: another worker announced it. Any other failure: say it here rather than not at all.
    return (error as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}
