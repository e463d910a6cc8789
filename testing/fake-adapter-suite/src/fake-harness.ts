// Runs a suite once per adapter, each over its own copy of the fake libcuda (one dlopen handle,
// so one set of fake state, per adapter), and reads what reached C from the fake's log
// (FAKE_CUDA_LOG: "call" lines of recorded entry points, and cuGetProcAddress requests).
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Driver, EntryPointMode } from '@cumem/core-types';
import { nativeAddonInfo } from '@cumem/driver-napi';
import { buildFakeLibcuda, type FakeLibcudaVariant, fakeUnavailable } from '@cumem/fake-libcuda';
import { type FakeCall, fakeCalls, fakeRequests } from '@cumem/fake-libcuda/log';
import { adapters } from '@cumem/test-support';
import { afterEach, beforeEach, describe } from 'vitest';

export type { FakeCall };

export interface FakeHarness {
  readonly adapter: 'ffi' | 'napi';
  /** A driver over this adapter's copy of the fake, loaded now (FAKE_CUDA_VERSION = `version`). */
  driver(options?: { variant?: FakeLibcudaVariant; entryPoints?: EntryPointMode; version?: number }): Driver;
  /** The adapter's own `createDriver`, as a program calls it (any options, nothing loaded). */
  createDriver(options?: unknown): Driver;
  /** This adapter's copy of the fake library of `variant`. */
  library(variant?: FakeLibcudaVariant): string;
  /** The calls recorded since the test began. */
  calls(): FakeCall[];
  /** The last recorded call (throws when there is none). */
  last(): FakeCall;
  /** The cuGetProcAddress requests since the test began: name to the ABI versions asked. */
  requests(): Map<string, number[]>;
  /** Empties the log. */
  clearLog(): void;
}

const problem = fakeUnavailable();
const scratch = problem ? '' : mkdtempSync(join(tmpdir(), 'cumem-fake-suite-'));

function skipReason(adapter: 'ffi' | 'napi'): string | undefined {
  if (problem) return `skipped: not applicable: ${problem}`;
  if (adapter === 'napi') {
    const info = nativeAddonInfo();
    if (!info.loaded) return `skipped: the addon is not built (${info.message.split('\n')[0]})`;
  }
  return undefined;
}

function harness(adapter: 'ffi' | 'napi'): FakeHarness {
  const directory = join(scratch, adapter);
  const log = join(directory, 'fake.log');
  const copies = new Map<string, string>();
  const library = (variant: FakeLibcudaVariant = 'default') => {
    let copy = copies.get(variant);
    if (!copy) {
      mkdirSync(join(directory, variant), { recursive: true });
      copy = join(directory, variant, 'libcuda.so.1');
      copyFileSync(buildFakeLibcuda({ variant }), copy);
      copies.set(variant, copy);
    }
    return copy;
  };
  const calls = () => fakeCalls(log);
  return {
    adapter,
    library,
    driver({ variant, entryPoints = 'auto', version = 13000 } = {}) {
      process.env.FAKE_CUDA_VERSION = String(version);
      const driver = adapters[adapter]({ libraryPath: library(variant), entryPoints });
      void driver.driverVersion; // loads now, with this version
      return driver;
    },
    createDriver: (options) => adapters[adapter](options as never),
    calls,
    last() {
      const all = calls();
      if (all.length === 0) throw new Error('the fake recorded no call');
      return all[all.length - 1]!;
    },
    requests: () => fakeRequests(log),
    clearLog: () => writeFileSync(log, ''),
  };
}

const environment = [
  'FAKE_CUDA_VERSION',
  'FAKE_CUDA_INIT_RESULT',
  'FAKE_CUDA_FAIL',
  'FAKE_CUDA_BUSY_MS',
  'FAKE_CUDA_SYNC_US',
];

/** `body` once per adapter, each in a describe whose title names the adapter (and why it skips). */
export function describeOverFake(title: string, body: (fake: FakeHarness) => void): void {
  for (const adapter of ['ffi', 'napi'] as const) {
    const reason = skipReason(adapter);
    (reason ? describe.skip : describe)(
      `${adapter} over the fake libcuda: ${title}${reason ? ` — ${reason}` : ''}`,
      () => {
        const fake = reason ? (undefined as unknown as FakeHarness) : harness(adapter);
        beforeEach(() => {
          mkdirSync(join(scratch, adapter), { recursive: true });
          process.env.FAKE_CUDA_LOG = join(scratch, adapter, 'fake.log');
          fake.clearLog();
        });
        afterEach(() => {
          for (const name of environment) delete process.env[name];
          delete process.env.FAKE_CUDA_LOG;
        });
        body(fake);
      },
    );
  }
}
