// The drivers the crash cases run against: the reference driver, each adapter over the real
// libcuda (GPU machines), and each adapter over the hostile fake libcuda (every machine with a
// C compiler and cuda.h), and why a case is skipped on one of them.
import type { Driver, DriverCapabilities } from '@cumem/core-types';
import { buildFakeLibcuda, fakeUnavailable } from '@cumem/fake-libcuda';
import { adapters } from '@cumem/test-support';
import { driverMatrix, probeDriver, type TestDriver } from '@cumem/testing/vitest';
import type { CrashCase } from './crash-cases.js';
import type { CaseTarget } from './run-case.js';

/** A driver of the matrix, with how its cases are run. */
export interface CrashTarget {
  /** 'reference', 'napi', 'ffi', 'napi-fake' or 'ffi-fake'. */
  readonly key: string;
  readonly entry: TestDriver;
  readonly target: CaseTarget;
  readonly isFake: boolean;
}

function fakeLibrary(): { path?: string; problem?: string } {
  const problem = fakeUnavailable();
  if (problem) return { problem };
  try {
    return { path: buildFakeLibcuda() };
  } catch (error) {
    return { problem: `the fake libcuda did not compile: ${(error as Error).message.split('\n')[0]}` };
  }
}

/** Every target: reference, napi, ffi (real libcuda), then napi and ffi over the hostile fake. */
export function crashTargets(): CrashTarget[] {
  const targets: CrashTarget[] = driverMatrix(adapters).map((entry) => ({
    key: entry.name,
    entry,
    target: { driver: entry.name, libcuda: undefined, hostile: false },
    isFake: false,
  }));
  const fake = fakeLibrary();
  for (const name of ['napi', 'ffi'] as const) {
    const label = `${name} over the hostile fake libcuda`;
    const entry: TestDriver = fake.path
      ? probeDriver(label, () => adapters[name]({ libraryPath: fake.path }))
      : probeDriver(label, undefined);
    // A machine that cannot build the fake runs the real adapters instead: not applicable there.
    const skipReason = fake.problem ? `not applicable: ${fake.problem}` : entry.skipReason;
    // isReference: the fake runs on every machine, so under CUMEM_REQUIRE_GPU=1 its absence
    // is a visible skip, not a failure.
    targets.push({
      key: `${name}-fake`,
      entry: {
        name: label,
        isReference: true,
        skipReason,
        get driver(): Driver {
          return entry.driver;
        },
      },
      target: { driver: name, libcuda: fake.path, hostile: true },
      isFake: true,
    });
  }
  return targets;
}

let bigArrayBuffer: boolean | undefined;
function canMakeBigArrayBuffer(): boolean {
  if (bigArrayBuffer === undefined) {
    try {
      bigArrayBuffer = new Uint16Array(2 ** 31 + 2048).byteLength > 2 ** 32;
    } catch {
      bigArrayBuffer = false;
    }
  }
  return bigArrayBuffer;
}

/** Why `crashCase` does not run on `target`, or undefined. */
export function caseSkipReason(
  crashCase: CrashCase,
  target: CrashTarget,
  driver: Driver,
): string | undefined {
  for (const need of crashCase.needs) {
    if (need === 'fake') {
      if (!target.isFake) return 'not applicable: only the hostile fake libcuda makes freed memory fault';
    } else if (need === 'processes') {
      if (target.isFake) return 'not applicable: the fake libcuda shares no memory between processes';
    } else if (need === 'devices2') {
      const count = driver.deviceGetCount();
      if (count < 2) return `not applicable: the driver has ${count} device (the case needs 2 or more)`;
    } else if (need === 'kernels') {
      if (target.isFake) return 'not applicable: the fake libcuda runs no kernels';
    } else if (need === 'gpu') {
      if (target.isFake || driver.name === 'reference') return 'not applicable: only a GPU runs kernels';
    } else if (need === 'bigArrayBuffer') {
      if (!canMakeBigArrayBuffer()) return 'not applicable: this node cannot make a typed array over 4 GiB';
    } else if (!driver.capabilities[need as keyof DriverCapabilities]) {
      return target.isFake ? `not applicable: the fake driver lacks ${need}` : `driver lacks ${need}`;
    }
  }
  return undefined;
}
