// What the translated cuda.core IPC suites share: upstream's child process becomes a child Node
// process (cuda-core-ipc-child.mjs, over the built package) on a GPU driver; on the reference
// driver, which shares nothing between processes, the same scenario runs in this process over the
// IPC stand-in (test/ipc-emulation.ts), so the importer's checks run without a GPU.
//
// How upstream's objects travel:
// - a memory resource sent to a child -> its allocation handle's file descriptor, inherited as the
//   child's fd 3 (4, 5, ... for more pools), with the exporter's uuid in the request;
// - a Buffer put on a queue (pickled) -> its `ipcDescriptor` JSON, opened in the child through the
//   resource registered under the descriptor's uuid (`MemoryResource.fromRegistry`), which is what
//   unpickling does in cuda.core; a descriptor put on a queue -> the same JSON, opened through the
//   imported resource itself;
// - PatternGen's `fill_buffer` / `verify_buffer(seed)` -> `pattern(seed)` bytes copied in and compared.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Driver } from '@cumem/core-types';
import {
  DeviceMemoryResource,
  PinnedMemoryResource,
  type PoolMemoryResource,
  useDriver,
} from '@cumem/memory';
import type { TestDriver } from '@cumem/testing/vitest';
import { packageRoot, requireBuiltPackage } from '../child-process.js';
import { emulateIpc } from '../ipc-emulation.js';
import { scenarios, toBase64 } from './cuda-core-ipc-scenarios.mjs';

export { fromBase64, toBase64 } from './cuda-core-ipc-scenarios.mjs';

const childScript = fileURLToPath(new URL('./cuda-core-ipc-child.mjs', import.meta.url));

/** upstream's `NBYTES`: the size of every shared buffer. */
export const NBYTES = 64;

/** upstream's `POOL_SIZE`: the pool's maximum size. */
export const POOL_SIZE = 2097152;

/** The two resources upstream's `ipc_memory_resource` fixture gives (its DeviceMR / PinnedMR ids). */
export interface IpcPoolKind {
  readonly id: 'DeviceMR' | 'PinnedMR';
  readonly kind: 'device' | 'pinned';
  /** A new IPC-enabled pool of this kind (on device 0), as the fixture makes it. */
  readonly make: () => PoolMemoryResource;
  /** `describeEachDriver`'s `requires`: pool sharing (or the stand-in), host pools for pinned. */
  readonly requires: (driver: Driver) => string | undefined;
}

/** The device pool kind, which the cases upstream runs for DeviceMR only use. */
export const devicePoolKind: IpcPoolKind = {
  id: 'DeviceMR',
  kind: 'device',
  make: () => new DeviceMemoryResource(0, { maxSize: POOL_SIZE, ipcEnabled: true }),
  requires: (driver) => sharingOrStandIn.requires(driver),
};

export const ipcPoolKinds: readonly IpcPoolKind[] = [
  devicePoolKind,
  {
    id: 'PinnedMR',
    kind: 'pinned',
    make: () => new PinnedMemoryResource({ maxSize: POOL_SIZE, ipcEnabled: true }),
    requires: (driver) =>
      sharingOrStandIn.requires(driver) ??
      (driver.capabilities.hostMemoryPools
        ? undefined
        : 'not applicable: the driver has no host memory pools'),
  },
];

/** What an importer needs to know of `mr`'s pool, beside its file descriptor. */
export function poolOf(
  kind: IpcPoolKind,
  mr: PoolMemoryResource,
): { kind: string; device: number; uuid: string | null } {
  return { kind: kind.kind, device: 0, uuid: mr.uuid };
}

/**
 * `describeEachDriver` options of suites whose importer runs on the reference driver through the
 * stand-in: an adapter needs real pool sharing (else the block is not applicable).
 */
export const sharingOrStandIn = {
  requires: (driver: Driver): string | undefined =>
    driver.name === 'reference' || driver.capabilities.interprocess
      ? undefined
      : 'not applicable: the driver cannot share pools between processes',
};

/** Selects `entry`'s driver for the block: the reference one wrapped in the IPC stand-in. */
export function useSharingDriver(entry: TestDriver): void {
  if (entry.isReference) {
    useDriver(emulateIpc(entry.driver).driver);
  } else {
    requireBuiltPackage('the IPC child');
    useDriver(entry.driver);
  }
}

/** A request to one of the scenarios of cuda-core-ipc-scenarios.mjs (`role` names it). */
export interface ScenarioRequest {
  readonly role: string;
  readonly [field: string]: unknown;
}

/**
 * Runs `request` where upstream runs its child: in a child process that inherits `fds` as its
 * fds 3, 4, ... (GPU drivers), or in this process over the stand-in (reference driver). Both
 * hand the scenario JSON, as a real process boundary would.
 */
export async function importElsewhere<Report>(
  entry: TestDriver,
  request: ScenarioRequest,
  fds: readonly number[],
): Promise<Report> {
  const sent = JSON.parse(JSON.stringify(request)) as ScenarioRequest;
  if (entry.isReference) {
    const scenario = scenarios[request.role];
    if (scenario === undefined) throw new Error(`no scenario ${request.role}`);
    return JSON.parse(JSON.stringify(scenario(sent, fds))) as Report;
  }
  return runIpcChild<Report>(entry.name, sent, fds);
}

/** Runs the IPC child with adapter `driverName` on `request`, `fds` as its fds 3, 4, ...; its report. */
export async function runIpcChild<Report>(
  driverName: string,
  request: ScenarioRequest,
  fds: readonly number[],
): Promise<Report> {
  const child = spawn(process.execPath, ['--expose-gc', childScript], {
    cwd: packageRoot,
    env: { ...process.env, CUMEM_DRIVER: driverName },
    stdio: ['pipe', 'pipe', 'pipe', ...fds],
  });
  let output = '';
  let errors = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  // 'close' comes once the child's pipes are closed here too, so no descriptor of it is left open.
  const closed = once(child, 'close');
  const stdinClosed = once(child.stdin as NodeJS.WritableStream, 'close').catch(() => undefined);
  child.stdin?.end(`${JSON.stringify({ ...request, fdCount: fds.length })}\n`);
  const [code, signal] = (await closed) as [number | null, NodeJS.Signals | null];
  await stdinClosed;
  if (code !== 0) throw new Error(`IPC child exited with ${code ?? signal}: ${errors}`);
  return JSON.parse(output.trim().split('\n').at(-1) as string) as Report;
}

/** upstream's PatternGen: `NBYTES` bytes for `seed`, base64 (how a request carries them). */
export function patternText(seed: number, size = NBYTES): string {
  return toBase64(pattern(seed, size));
}

/** upstream's PatternGen: distinct bytes for each seed. */
export function pattern(seed: number, size = NBYTES): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + seed * 61 + 1) & 0xff;
  return bytes;
}

/** Every byte of `buffer`. */
export function contents(buffer: { readonly size: number; copyTo(target: Uint8Array): void }): Uint8Array {
  const bytes = new Uint8Array(buffer.size);
  buffer.copyTo(bytes);
  return bytes;
}

/** The older suites' IPCBufferTestHelper pattern: byte i is `startingFrom + i`, or 255 minus that when flipped. */
export function countingBytes(flipped: boolean, startingFrom = 0, size = NBYTES): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (flipped ? 255 - (startingFrom + i) : startingFrom + i) & 0xff;
  return bytes;
}
