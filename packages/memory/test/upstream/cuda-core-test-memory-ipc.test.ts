// cuda.core's IPC memory-pool tests, translated case by case into cumem's API: upstream
// NVIDIA/cuda-python cuda_core/tests/memory_ipc/test_memory_ipc.py at commit
// 01db773955806205e65e0553c8d22192419cc440 (its fixtures: memory_ipc/conftest.py, an IPC-enabled
// DeviceMemoryResource of 2 MiB on device 0).
//
// Each child is a Node process over the BUILT package (dist/, so `tsc -b` must have run): the
// pool's file descriptor is its fd 3, the rest one JSON line on stdin, and it reports as JSON.
// Upstream passes Buffer objects through pickling, which finds the imported resource by the
// exporter's uuid; cumem's counterpart is the descriptor's uuid and MemoryResource.fromRegistry
// (the child imports the pool under that uuid). Interprocess sharing is needed: elsewhere the
// block skips, saying why. Byte i of upstream's pattern for a seed is (seed + i) & 0xff; its
// seed=False is 0 and seed=True is 1.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Driver } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterEach, beforeAll, expect, it } from 'vitest';
import {
  type Buffer,
  DeviceMemoryResource,
  type IpcBufferDescriptor,
  setCurrentDevice,
  useDriver,
} from '../../src/index.js';
import { adapters } from '../adapters.js';
import { packageRoot, requireBuiltPackage } from '../child-process.js';
import { needsPools } from './upstream-gates.js';

const nbytes = 64;
const poolSize = 2 * 1024 * 1024;

/** One buffer a child opens: the bytes it checks (a seed, or null) and the pattern it writes. */
interface ChildTask {
  readonly descriptor: IpcBufferDescriptor;
  readonly verifySeed: number | null;
  readonly fillSeed: number | null;
}

interface ChildReport {
  readonly isMapped: boolean;
  /** Per task: whether the bytes matched (null: not checked), and whether the registry gave the import. */
  readonly tasks: { readonly verified: boolean | null; readonly registered: boolean }[];
}

// The child: imports the pool (registered under the exporter's uuid), opens each buffer through
// the import itself or, with `viaRegistry`, through the resource the registry gives for the
// descriptor's uuid; checks and writes the patterns asked, and closes all it opened.
const childSource = `
import { createInterface } from 'node:readline';
import { Buffer, DeviceMemoryResource, IpcAllocationHandle, MemoryResource, setCurrentDevice } from '@cumem/memory';
const lines = createInterface({ input: process.stdin });
const request = JSON.parse(await new Promise((resolve) => lines.once('line', resolve)));
lines.close();
const pattern = (seed, size) => Uint8Array.from({ length: size }, (_, index) => (seed + index) & 0xff);
setCurrentDevice(0);
const handle = IpcAllocationHandle.fromFileDescriptor(3, { uuid: request.uuid });
const imported = DeviceMemoryResource.fromAllocationHandle(0, handle);
const report = { isMapped: imported.isMapped, tasks: [] };
for (const task of request.tasks) {
  const mr = request.viaRegistry ? MemoryResource.fromRegistry(task.descriptor.uuid) : imported;
  const buffer = Buffer.fromIpcDescriptor(mr, task.descriptor);
  let verified = null;
  if (task.verifySeed !== null) {
    const bytes = new Uint8Array(buffer.size);
    buffer.copyTo(bytes);
    const expected = pattern(task.verifySeed, buffer.size);
    verified = bytes.every((byte, index) => byte === expected[index]);
  }
  if (task.fillSeed !== null) buffer.copyFrom(pattern(task.fillSeed, buffer.size));
  buffer.close();
  report.tasks.push({ verified, registered: mr === imported });
}
imported.close();
process.stdout.write(JSON.stringify(report));
`;

async function runChild(
  driverName: string,
  fd: number,
  request: { uuid: string | null; viaRegistry: boolean; tasks: ChildTask[] },
): Promise<ChildReport> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', childSource], {
    // Inside packages/memory, so the child's '@cumem/memory' is the built package itself.
    cwd: packageRoot,
    env: { ...process.env, CUMEM_DRIVER: driverName },
    stdio: ['pipe', 'pipe', 'pipe', fd],
  });
  let output = '';
  let errors = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const closed = once(child, 'close');
  const stdinClosed = once(child.stdin as NodeJS.WritableStream, 'close').catch(() => undefined);
  child.stdin?.end(`${JSON.stringify(request)}\n`);
  const [code] = (await closed) as [number | null];
  await stdinClosed;
  if (code !== 0) throw new Error(`child exited with ${code}: ${errors}`);
  return JSON.parse(output) as ChildReport;
}

const pattern = (seed: number) => Uint8Array.from({ length: nbytes }, (_, index) => (seed + index) & 0xff);

function fill(buffer: Buffer, seed: number): void {
  buffer.copyFrom(pattern(seed));
}

function holds(buffer: Buffer, seed: number): boolean {
  const bytes = new Uint8Array(buffer.size);
  buffer.copyTo(bytes);
  return bytes.every((byte, index) => byte === pattern(seed)[index]);
}

/** What a descriptor carries across processes: plain JSON. */
const sent = (buffer: Buffer) => JSON.parse(JSON.stringify(buffer.ipcDescriptor)) as IpcBufferDescriptor;

const needsIpcPools = (driver: Driver) => {
  if (!driver.capabilities.interprocess) return 'driver lacks interprocess';
  return needsPools(driver);
};

describeEachDriver(
  adapters,
  'cuda.core test_memory_ipc.py',
  (entry) => {
    let mr: DeviceMemoryResource | undefined;
    beforeAll(() => {
      requireBuiltPackage('the IPC child');
      useDriver(entry.driver);
      setCurrentDevice(0);
    });
    afterEach(() => mr?.close());

    const ipcMemoryResource = () => {
      const made = new DeviceMemoryResource(0, { maxSize: poolSize, ipcEnabled: true });
      mr = made;
      expect(made.isIpcEnabled).toBe(true);
      return made;
    };

    it("TestIpcMempool.test_main: a child reads the parent's bytes and writes its own", async () => {
      const pool = ipcMemoryResource();
      const buffer = pool.allocate(nbytes);
      fill(buffer, 0);
      const handle = pool.getAllocationHandle();
      const report = await runChild(entry.name, handle.fileDescriptor, {
        uuid: pool.uuid,
        viaRegistry: false,
        tasks: [{ descriptor: sent(buffer), verifySeed: 0, fillSeed: 1 }],
      });
      expect(report).toEqual({ isMapped: true, tasks: [{ verified: true, registered: true }] });
      expect(holds(buffer, 1)).toBe(true);
      buffer.close();
    });

    it('TestIPCMempoolMultiple.test_main: two children import both buffers; each writes one', async () => {
      const pool = ipcMemoryResource();
      const first = pool.allocate(nbytes);
      const second = pool.allocate(nbytes);
      const handle = pool.getAllocationHandle();
      const both = (writes: 1 | 2) => [
        { descriptor: sent(first), verifySeed: null, fillSeed: writes === 1 ? 1 : null },
        { descriptor: sent(second), verifySeed: null, fillSeed: writes === 2 ? 2 : null },
      ];
      const reports = await Promise.all(
        ([1, 2] as const).map((writes) =>
          runChild(entry.name, handle.fileDescriptor, {
            uuid: pool.uuid,
            viaRegistry: true,
            tasks: both(writes),
          }),
        ),
      );
      for (const report of reports) {
        expect(report).toEqual({
          isMapped: true,
          tasks: [
            { verified: null, registered: true },
            { verified: null, registered: true },
          ],
        });
      }
      expect(holds(first, 1)).toBe(true);
      expect(holds(second, 2)).toBe(true);
      first.close();
      second.close();
    });

    for (const [title, viaRegistry] of [
      [
        'TestIPCSharedAllocationHandleAndBufferDescriptors.test_main: one handle serves two children, buffers sent as descriptors',
        false,
      ],
      [
        'TestIPCSharedAllocationHandleAndBufferObjects.test_main: one handle serves two children, buffers found through the registry',
        true,
      ],
    ] as const) {
      it(title, async () => {
        const pool = ipcMemoryResource();
        const handle = pool.getAllocationHandle();
        const first = pool.allocate(nbytes);
        const second = pool.allocate(nbytes);
        const reports = await Promise.all(
          [
            { buffer: first, seed: 0 },
            { buffer: second, seed: 1 },
          ].map(({ buffer, seed }) =>
            runChild(entry.name, handle.fileDescriptor, {
              uuid: pool.uuid,
              viaRegistry,
              tasks: [{ descriptor: sent(buffer), verifySeed: null, fillSeed: seed }],
            }),
          ),
        );
        for (const report of reports)
          expect(report).toEqual({ isMapped: true, tasks: [{ verified: null, registered: true }] });
        expect(holds(first, 0)).toBe(true);
        expect(holds(second, 1)).toBe(true);
        first.close();
        second.close();
      });
    }
  },
  { requires: needsIpcPools },
);
