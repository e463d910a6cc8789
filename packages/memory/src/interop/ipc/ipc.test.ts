// Cross-process sharing with a real child process: the pool's file descriptor travels as the
// child's fds 3 and 4 (a warm-up import, then a counted one), the buffer as a JSON descriptor;
// data goes both ways. The child imports the
// built package (dist/), so `tsc -b` must have run. GPU drivers only (capabilities.interprocess).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { poolSharingDrivers } from '@cumem/test-support';
import { describeEachDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { packageRoot, requireBuiltPackage } from '../../../test/child-process.js';
import { Buffer } from '../../buffer/buffer.js';
import { DeviceMemoryResource } from '../../resources/device-memory-resource.js';
import { PinnedMemoryResource } from '../../resources/pinned-memory-resource.js';
import type { PoolMemoryResource } from '../../resources/pool/pool-memory-resource.js';
import { useDriver } from '../../runtime/driver-selection.js';

const childScript = fileURLToPath(new URL('../../../test/fixtures/ipc-child.mjs', import.meta.url));
const untrustedScript = fileURLToPath(
  new URL('../../../test/fixtures/ipc-untrusted-child.mjs', import.meta.url),
);
const openDescriptors = () => readdirSync('/proc/self/fd').length;

interface ChildReport {
  isMapped: boolean;
  handleClosed: boolean;
  registered: boolean;
  refusesAllocate: boolean;
  refusesExport: boolean;
  sawParentBytes: boolean;
  crossCopySawParentBytes: boolean | null;
  hostViewMatches: boolean | null;
  size: number;
  oversizedRefused: boolean;
  warmUpSawParentBytes: boolean;
  descriptorsBefore: number;
  descriptorsAfter: number;
}

async function runChild<Report = ChildReport>(
  driverName: string,
  fd: number,
  request: object,
  script = childScript,
): Promise<Report> {
  const child = spawn(process.execPath, ['--expose-gc', script], {
    cwd: packageRoot,
    env: { ...process.env, CUMEM_DRIVER: driverName },
    stdio: ['pipe', 'pipe', 'pipe', fd, fd],
  });
  let output = '';
  let errors = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    errors += chunk;
  });
  // 'close' (not 'exit') comes once the child's pipes are closed on this side too, so the
  // parent's descriptor count is settled when the round ends.
  const closed = once(child, 'close');
  // A child that dies before reading gives EPIPE here; its exit code says why.
  const stdinClosed = once(child.stdin!, 'close').catch(() => undefined);
  child.stdin!.end(`${JSON.stringify(request)}\n`);
  const [code] = (await closed) as [number | null];
  await stdinClosed;
  if (code !== 0) throw new Error(`child exited with ${code}: ${errors}`);
  return JSON.parse(output) as Report;
}

async function handOff(
  driverName: string,
  mr: PoolMemoryResource,
  kind: 'device' | 'pinned',
  device = 0,
): Promise<void> {
  const size = 1 << 20;
  const buffer = mr.allocate(size);
  buffer.fill(0x11);
  const handle = mr.getAllocationHandle();
  expect(mr.getAllocationHandle()).toBe(handle);
  const descriptor = JSON.parse(JSON.stringify(buffer.ipcDescriptor));
  expect(descriptor.size).toBe(size);
  expect(descriptor.uuid).toBe(mr.uuid);
  const report = await runChild(driverName, handle.fileDescriptor, {
    kind,
    device,
    crossCopy: device !== 0,
    uuid: mr.uuid,
    descriptor,
    expect: 0x11,
    write: 0x22,
  });
  expect(report).toMatchObject({
    warmUpSawParentBytes: true,
    isMapped: true,
    handleClosed: true,
    registered: true,
    refusesAllocate: true,
    refusesExport: true,
    sawParentBytes: true,
    crossCopySawParentBytes: device !== 0 ? true : null,
    size,
    oversizedRefused: true,
  });
  // Only an imported resource opens descriptors; the exporting one refuses.
  expect(() => Buffer.fromIpcDescriptor(mr, descriptor)).toThrow(TypeError);
  expect(report.hostViewMatches).toBe(kind === 'pinned' ? true : null);
  // The counted import consumes (closes) its duplicate of fd 4, leaves fd 4 open (it stays the
  // caller's) and must leave nothing else open.
  expect(report.descriptorsAfter).toBe(report.descriptorsBefore);
  const back = new Uint8Array(size);
  buffer.copyTo(back);
  expect(back.every((byte) => byte === 0x22)).toBe(true);
  buffer.close();
}

describeEachDriver(
  adapters,
  'IPC with a child process',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage('the IPC child');
      useDriver(entry.driver);
    });

    // The driver opens descriptors of its own on first IPC use (33 more after the first round on
    // CUDA 13.0) and keeps them: count after a warm-up round, then a second round must leak none.
    async function leaksNothingAfterWarmUp(round: () => Promise<void>): Promise<void> {
      await round();
      const descriptors = openDescriptors();
      await round();
      expect(openDescriptors()).toBe(descriptors);
    }

    describe('device pool', () => {
      it('shares a buffer both ways and leaks no file descriptor', async () => {
        await leaksNothingAfterWarmUp(async () => {
          const mr = new DeviceMemoryResource(0, { ipcEnabled: true });
          expect(mr.isIpcEnabled).toBe(true);
          expect(typeof mr.uuid).toBe('string');
          await handOff(entry.name, mr, 'device');
          mr.close();
        });
      });
    });

    // What another process could send: every error is named by the child (null: none thrown).
    for (const kind of ['device', 'pinned'] as const) {
      it(`${kind} pool: an inflated size, one descriptor twice, a free under a buffer, the wrong kind`, async () => {
        const mr =
          kind === 'device'
            ? new DeviceMemoryResource(0, { ipcEnabled: true })
            : new PinnedMemoryResource({ ipcEnabled: true });
        const buffer = mr.allocate(64 * 1024);
        buffer.fill(0x33);
        const report = await runChild<Record<string, string | boolean | null>>(
          entry.name,
          mr.getAllocationHandle().fileDescriptor,
          { kind, device: 0, descriptor: buffer.ipcDescriptor, expect: 0x33 },
          untrustedScript,
        );
        expect(report.inflated).toMatch(/^RangeError/);
        expect(report.sameHandle).toBe(true);
        expect(report.deallocate).toMatch(/^CudaStateError/);
        expect(report.firstClose).toBeNull();
        expect(report.secondReads).toBe(true);
        expect(report.secondClose).toBeNull();
        expect(report.crossKind).toMatch(/^TypeError: .*another kind of pool/);
        buffer.close();
        mr.close();
      });
    }

    describe('pinned pool', () => {
      it('shares a buffer both ways and leaks no file descriptor', async () => {
        await leaksNothingAfterWarmUp(async () => {
          const mr = new PinnedMemoryResource({ ipcEnabled: true });
          await handOff(entry.name, mr, 'pinned');
          mr.close();
        });
      });
    });
  },
  poolSharingDrivers,
);

describeEachDriverWithDevices(
  adapters,
  2,
  'IPC with a child process, device 1',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage('the IPC child');
      useDriver(entry.driver);
    });

    it('shares a device-1 pool buffer both ways; the child copies it to device 0 too', async () => {
      const mr = new DeviceMemoryResource(1, { ipcEnabled: true });
      expect(mr.deviceId).toBe(1);
      await handOff(entry.name, mr, 'device', 1);
      mr.close();
    });
  },
  poolSharingDrivers,
);
