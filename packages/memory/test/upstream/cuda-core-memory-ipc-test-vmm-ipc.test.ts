/**
 * cuda.core's tests of sharing VirtualMemoryResource buffers between processes, translated case
 * by case into an acceptance suite for `mr.exportBuffer` / `mr.importBuffer` of `@cumem/memory`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_vmm_ipc.py`, as read at commit
 * 2231df7df59ada757c78a3450b33f5f252aff6a3. Each case title starts with the upstream class and
 * function name.
 *
 * How cuda.core's Python maps here:
 * - `buf.ipc_descriptor` (sizes and the chunks' file descriptors in one object) ->
 *   `mr.exportBuffer(buf)`: `{ descriptor, handles }`, the JSON-safe sizes apart from one
 *   IpcAllocationHandle per chunk (README "Sharing VMM buffers between processes");
 *   `Buffer.from_ipc_descriptor(mr, desc)` -> `mr.importBuffer(descriptor, handles)` on the
 *   importer's own `VirtualMemoryResource(0, { handleType: 'posixFd' })`.
 * - a child process -> cuda-core-ipc-child.mjs, given the chunks' descriptors as fds 3, 4, ...
 * - `_fill` / `_read` (cuMemsetD8 / cuMemcpyDtoH) -> `fill` and `copyTo` of the buffer or a slice.
 * - cumem's `allocate(n)` is n bytes (cuda.core rounds the buffer up to the granularity): the
 *   cases allocate what they read, and a granule where upstream uses the buffer's size as one.
 * - The reference driver cannot export VMM memory: the cases that share run on GPU drivers; the
 *   refusals without a shareable resource run on every driver.
 *
 * Not ported:
 * - test_descriptor_round_trip's `buf.ipc_descriptor is desc` (a cached descriptor) and the
 *   child's `_is_mapped(ptr)` after close (cuMemRetainAllocationHandle): `exportBuffer` makes new
 *   handles on each call (the caller closes them once sent), and cumem has no public call that
 *   asks the driver whether an address is still mapped; the child reports its buffer closed.
 * - test_import_in_same_process_aliases_memory's `_is_mapped` checks: the same; the case checks
 *   that the alias still reads the memory after the exporter's buffer is closed.
 * - test_descriptor_owns_its_file_descriptors' `pickle.dumps(desc)` TypeError: cumem's descriptor
 *   holds only sizes and serializes (documented); the handles own the descriptors instead.
 */
import { fstatSync } from 'node:fs';
import { type Driver, VirtualMemoryDeviceAttribute } from '@cumem/core-types';
import {
  Buffer,
  DeviceMemoryResource,
  NotSupportedError,
  useDriver,
  VirtualMemoryResource,
} from '@cumem/memory';
import { poolSharingDrivers } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { requireBuiltPackage } from '../child-process.js';
import { contents, fromBase64, runIpcChild, toBase64 } from './cuda-core-ipc-support.js';
import { DummyDeviceMemoryResource } from './dummy-resources.js';

const needsPosixVmm = (driver: Driver) =>
  poolSharingDrivers.requires(driver) ??
  (driver.deviceGetAttribute(VirtualMemoryDeviceAttribute.VirtualMemoryManagementSupported, 0) === 0
    ? 'not applicable: device 0 has no virtual memory management'
    : driver.deviceGetAttribute(VirtualMemoryDeviceAttribute.HandleTypePosixFileDescriptorSupported, 0) === 0
      ? 'not applicable: device 0 cannot export VMM memory as POSIX file descriptors'
      : undefined);

/** upstream's `_resource(device)`: a resource whose chunks export as POSIX file descriptors. */
const shareable = () => new VirtualMemoryResource(0, { handleType: 'posixFd' });

/** `length` bytes of `value`, base64 (how the child reports what it read). */
const bytesText = (value: number, length = 16) => toBase64(new Uint8Array(length).fill(value));

interface ImportReport {
  size: number;
  resourceIsVirtual: boolean;
  deviceId: number;
  reads: string[];
  bufferClosed: boolean;
}

/** Sends `buffer` of `mr` to the child, which reads `reads` and writes `write`; its report. */
async function sendToChild(
  driverName: string,
  mr: VirtualMemoryResource,
  buffer: Buffer,
  reads: { offset: number; length: number }[],
  write: number | null,
): Promise<ImportReport> {
  const { descriptor, handles } = mr.exportBuffer(buffer);
  try {
    return await runIpcChild<ImportReport>(
      driverName,
      { role: 'virtualImport', device: 0, descriptor, reads, write },
      handles.map((handle) => handle.fileDescriptor),
    );
  } finally {
    for (const handle of handles) handle.close();
  }
}

describeEachDriver(
  adapters,
  'cuda.core test_vmm_ipc.py',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage('the IPC child');
      useDriver(entry.driver);
    });

    it('TestVmmIpcDescriptor.test_descriptor_round_trip: the child reads the parent’s bytes, writes its own and closes', async () => {
      using mr = shareable();
      const buffer = mr.allocate(16);
      buffer.fill(0xab);
      const { descriptor, handles } = mr.exportBuffer(buffer);
      expect(descriptor.size).toBe(buffer.size);
      for (const handle of handles) handle.close();
      expect(buffer.isMapped).toBe(false);
      const report = await sendToChild(entry.name, mr, buffer, [{ offset: 0, length: 16 }], 0x5a);
      expect(report).toMatchObject({ size: 16, reads: [bytesText(0xab)], bufferClosed: true });
      expect(contents(buffer)).toEqual(fromBase64(bytesText(0x5a)));
      buffer.close();
    });

    it('TestVmmIpcDescriptor.test_buffer_pickles_through_queue: the child’s buffer belongs to its own VirtualMemoryResource of device 0', async () => {
      using mr = shareable();
      const buffer = mr.allocate(16);
      buffer.fill(0x11);
      const report = await sendToChild(entry.name, mr, buffer, [{ offset: 0, length: 16 }], 0x22);
      expect(report).toMatchObject({ resourceIsVirtual: true, deviceId: 0, reads: [bytesText(0x11)] });
      expect(contents(buffer)).toEqual(fromBase64(bytesText(0x22)));
      buffer.close();
    });

    it('TestVmmIpcDescriptor.test_grown_buffer_imports_as_one_range: a buffer grown to two chunks imports as one contiguous range', async () => {
      using mr = shareable();
      const granule = mr.granularity;
      const { buffer: grown } = mr.modifyAllocation(mr.allocate(granule), 2 * granule);
      expect(grown.size).toBe(2 * granule);
      grown.slice(0, granule).fill(0x11);
      grown.slice(granule, granule).fill(0x22);
      const { descriptor, handles } = mr.exportBuffer(grown);
      expect(descriptor.size).toBe(2 * granule);
      expect(descriptor.chunks).toHaveLength(2);
      for (const handle of handles) handle.close();
      const report = await sendToChild(
        entry.name,
        mr,
        grown,
        [
          { offset: 0, length: 16 },
          { offset: granule, length: 16 },
        ],
        null,
      );
      expect(report.size).toBe(2 * granule);
      expect(report.reads).toEqual([bytesText(0x11), bytesText(0x22)]);
      grown.close();
    });

    it('TestVmmIpcDescriptor.test_import_in_same_process_aliases_memory: an import where it was exported maps the same memory at a new address', () => {
      using mr = shareable();
      const buffer = mr.allocate(16);
      const { descriptor, handles } = mr.exportBuffer(buffer);
      const alias = mr.importBuffer(descriptor, handles);
      for (const handle of handles) handle.close();
      expect(alias.handle).not.toBe(buffer.handle);
      buffer.fill(0x33);
      expect(contents(alias)).toEqual(fromBase64(bytesText(0x33)));
      alias.fill(0x44);
      expect(contents(buffer)).toEqual(fromBase64(bytesText(0x44)));
      buffer.close();
      // The import keeps the memory alive.
      expect(contents(alias)).toEqual(fromBase64(bytesText(0x44)));
      alias.close();
    });

    it('TestVmmIpcDescriptor.test_descriptor_round_trip: a buffer imported with importBuffer is mapped, its exporter is not', () => {
      using mr = shareable();
      const buffer = mr.allocate(16);
      const { descriptor, handles } = mr.exportBuffer(buffer);
      const imported = mr.importBuffer(descriptor, handles);
      for (const handle of handles) handle.close();
      expect(imported.isMapped).toBe(true);
      expect(imported.slice(0, 8).isMapped).toBe(true);
      expect(buffer.isMapped).toBe(false);
      imported.close();
      buffer.close();
    });

    it('TestVmmIpcDescriptor.test_descriptor_owns_its_file_descriptors: each handle owns its descriptor, which close() closes; the descriptor is plain JSON', () => {
      using mr = shareable();
      const buffer = mr.allocate(16);
      const { descriptor, handles } = mr.exportBuffer(buffer);
      const handle = handles[0];
      if (handle === undefined) throw new Error('exportBuffer gave no handle');
      const fd = handle.fileDescriptor;
      expect(() => fstatSync(fd)).not.toThrow();
      expect(JSON.parse(JSON.stringify(descriptor))).toEqual(descriptor);
      // The handles are the caller's: closing the buffer leaves them open.
      buffer.close();
      expect(handle.isClosed).toBe(false);
      expect(() => fstatSync(fd)).not.toThrow();
      handle.close();
      expect(() => fstatSync(fd)).toThrow(/EBADF/);
    });

    it('TestVmmIpcDescriptor.test_errors: a shareable export is refused by a non-shareable resource and by a pool resource; a pool descriptor by a VirtualMemoryResource', () => {
      using shared = shareable();
      using unshared = new VirtualMemoryResource(0);
      const buffer = shared.allocate(16);
      const { descriptor, handles } = shared.exportBuffer(buffer);
      expect(() => unshared.importBuffer(descriptor, handles)).toThrow(NotSupportedError);
      expect(() => Buffer.fromIpcDescriptor(new DeviceMemoryResource(0), descriptor as never)).toThrow(
        TypeError,
      );
      const poolDescriptor = { data: toBase64(new Uint8Array(64)), size: 64, uuid: null };
      expect(() => shared.importBuffer(poolDescriptor as never, [])).toThrow(TypeError);
      for (const handle of handles) handle.close();
      buffer.close();
    });
  },
  { ...poolSharingDrivers, requires: needsPosixVmm },
);

describeEachDriver(adapters, 'cuda.core test_vmm_ipc.py, refusals', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('TestVmmIpcDescriptor.test_errors: a resource without a shareable handle type neither exports nor imports; a resource of one’s own shares nothing', () => {
    using unshared = new VirtualMemoryResource(0);
    const buffer = unshared.allocate(16);
    expect(() => unshared.exportBuffer(buffer)).toThrow(NotSupportedError);
    expect(() => unshared.exportBuffer(buffer)).toThrow(/handleType 'posixFd'/);
    expect(() => unshared.importBuffer({ size: 16, chunks: [unshared.granularity] }, [])).toThrow(
      NotSupportedError,
    );
    buffer.close();
    // Memory a resource of one's own wraps is not a pool's: refused before any driver call.
    const wrapped = new DummyDeviceMemoryResource().allocate(64);
    expect(() => wrapped.ipcDescriptor).toThrow(TypeError);
    expect(() => wrapped.ipcDescriptor).toThrow(/cannot be shared/);
    wrapped.close();
  });
});
