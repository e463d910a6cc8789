// VirtualMemoryResource IPC: a two-chunk buffer (allocated, then grown in place) exported as one
// file descriptor per chunk to a real child process (fds 3 and 4), which imports it, reads the
// parent's bytes, writes its own and reports how it refused hostile descriptors. The child
// imports the built package (dist/). The argument checks before any driver call run on every
// driver; sharing needs capabilities.interprocess (GPU drivers).
import { spawnSync } from 'node:child_process';
import { CudaStateError, NotSupportedError } from '@cumem/core-types';
import { download, poolSharingDrivers } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { packageRoot, requireBuiltPackage } from '../../../test/child-process.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { defaultStream } from '../../stream/stream.js';
import { VirtualMemoryResource } from './virtual-memory-resource.js';

const childScript = new URL('../../../test/fixtures/vmm-ipc-child.mjs', import.meta.url).pathname;

describeEachDriver(adapters, 'VirtualMemoryResource IPC refusals', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it("a resource without handleType 'posixFd' neither exports nor imports", () => {
    using mr = new VirtualMemoryResource(0);
    using buffer = mr.allocate(1);
    expect(() => mr.exportBuffer(buffer)).toThrow(NotSupportedError);
    expect(() => mr.importBuffer({ size: 1, chunks: [mr.granularity] }, [])).toThrow(NotSupportedError);
    expect(() => mr.exportBuffer(buffer.slice(0, 1))).toThrow(TypeError);
    expect(() => mr.exportBuffer({} as never)).toThrow(TypeError);
    const other = new VirtualMemoryResource(0);
    const foreign = other.allocate(1);
    expect(() => mr.exportBuffer(foreign)).toThrow(TypeError);
    foreign.close();
    buffer.close();
    expect(() => mr.exportBuffer(buffer)).toThrow(CudaStateError);
    other.close();
    expect(() => other.importBuffer({ size: 1, chunks: [1] }, [])).toThrow(CudaStateError);
  });
});

describeEachDriver(
  adapters,
  'VirtualMemoryResource IPC with a child process',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage('the VMM IPC child');
      useDriver(entry.driver);
    });

    it('refuses descriptors and handles of the wrong shape before any driver call', () => {
      using mr = new VirtualMemoryResource(0, { handleType: 'posixFd' });
      using buffer = mr.allocate(1);
      const { descriptor, handles } = mr.exportBuffer(buffer);
      const g = mr.granularity;
      expect(descriptor).toEqual({ size: 1, chunks: [g] });
      expect(Object.isFrozen(descriptor)).toBe(true);
      expect(handles).toHaveLength(1);
      const bad: [unknown, unknown, new (...args: never[]) => Error][] = [
        [null, handles, TypeError],
        [{ size: 1, chunks: [] }, handles, TypeError],
        [{ size: 1, chunks: [g] }, [], TypeError],
        [{ size: 1, chunks: [g] }, [3], TypeError],
        [{ size: 0, chunks: [g] }, handles, RangeError],
        [{ size: -1, chunks: [g] }, handles, RangeError],
        [{ size: 2 ** 53, chunks: [g] }, handles, RangeError],
        [{ size: 1, chunks: [g / 2] }, handles, RangeError],
        [{ size: g + 1, chunks: [g] }, handles, RangeError],
        [{ size: 1, chunks: [2 ** 52] }, handles, RangeError],
      ];
      for (const [d, h, error] of bad) expect(() => mr.importBuffer(d as never, h as never)).toThrow(error);
      for (const handle of handles) handle.close();
      expect(() => mr.importBuffer(descriptor, handles)).toThrow(CudaStateError);
    });

    it('shares a two-chunk buffer both ways; the child refuses lying sizes and non-VMM descriptors', () => {
      using mr = new VirtualMemoryResource(0, { handleType: 'posixFd', reserveSize: 4 * 2 ** 21 });
      const g = mr.granularity;
      const first = mr.allocate(g);
      const { buffer, moved } = mr.modifyAllocation(first, g + 5);
      expect(moved).toBe(false);
      buffer.fill(0x11);
      defaultStream().sync();
      const shared = mr.exportBuffer(buffer);
      expect(shared.descriptor).toEqual({ size: g + 5, chunks: [g, g] });
      const fds = shared.handles.map((handle) => handle.fileDescriptor);
      const request = {
        device: 0,
        descriptor: JSON.parse(JSON.stringify(shared.descriptor)),
        expect: 0x11,
        write: 0x22,
      };
      const child = spawnSync(process.execPath, [childScript], {
        cwd: packageRoot,
        env: { ...process.env, CUMEM_DRIVER: entry.name },
        input: `${JSON.stringify(request)}\n`,
        stdio: ['pipe', 'pipe', 'pipe', ...fds],
        encoding: 'utf8',
        timeout: 110_000,
      });
      for (const handle of shared.handles) handle.close();
      expect({ status: child.status, signal: child.signal }, child.stderr).toEqual({
        status: 0,
        signal: null,
      });
      const report = JSON.parse(child.stdout.trim().split('\n').at(-1) as string);
      expect(report).toMatchObject({ size: g + 5, sawParentBytes: true });
      expect(report.inflatedChunk).toMatch(/^CudaError/);
      expect(report.sizePastChunks).toMatch(/^RangeError/);
      expect(report.missingHandle).toMatch(/^TypeError/);
      expect(report.notVmm).toMatch(/^CudaError/);
      expect(report.resize).toMatch(/^TypeError: modifyAllocation cannot resize/);
      expect(download(buffer).every((byte) => byte === 0x22)).toBe(true);
      buffer.close();
      using again = mr.allocate(2 * g);
      expect(again.size).toBe(2 * g);
    });
  },
  poolSharingDrivers,
);
