/**
 * cuda.core's IPC error tests, translated case by case into an acceptance suite for what
 * `@cumem/memory` refuses when pools and buffers are shared between processes.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_errors.py`, as read at commit
 * 02264ad25a579639d26354ac6c3d5516e4f61abd. Each case title starts with the upstream function
 * (or class) name and the `ipc_memory_resource` parametrization (DeviceMR / PinnedMR).
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in):
 * - `IPCBufferDescriptor._init(payload, size)` -> a descriptor object `{ data, size, uuid }` with
 *   other data or size; `IPCAllocationHandle._init(fd, uuid)` ->
 *   `IpcAllocationHandle.fromFileDescriptor(fd, { uuid })` (a duplicate the handle owns).
 * - cuda.core's ValueError for a value out of range is cumem's RangeError; its RuntimeError for
 *   a closed object is CudaStateError; "not found in the registry" is a RangeError naming the uuid.
 * - ChildErrorHarness: the child's action runs where the importer runs (a child process on a
 *   GPU, this process over the stand-in on the reference driver) and reports what it threw as
 *   `'<name>: <message>'`.
 *
 * Deviation (documented: README "Memory resources — all: ... `register(uuid)`"): cumem registers
 * any resource, IPC-enabled or not, so test_register_rejects_non_ipc_memory_resource checks that
 * registration works and that a refused one leaves nothing behind.
 *
 * Not ported:
 * - test_outer_timeout_marker_is_applied: checks that pytest's per-directory conftest adds a
 *   timeout marker; vitest's timeout is the package config's `testTimeout`, no test concern.
 * - test_ipc_allocation_handle_state_tracks_close's `bool(handle)` after close: Python
 *   truthiness; an object is always truthy in JavaScript.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  Buffer,
  CudaStateError,
  DeviceMemoryResource,
  IpcAllocationHandle,
  MemoryResource,
  PinnedMemoryResource,
  type PoolMemoryResource,
  useDriver,
} from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import {
  importElsewhere,
  ipcPoolKinds,
  NBYTES,
  POOL_SIZE,
  poolOf,
  toBase64,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

describeEachDriver(adapters, 'cuda.core test_errors.py, allocation handles and the registry', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('test_ipc_allocation_handle_rejects_negative_fd: a negative descriptor is a RangeError', () => {
    expect(() => IpcAllocationHandle.fromFileDescriptor(-1)).toThrow(RangeError);
    expect(() => IpcAllocationHandle.fromFileDescriptor(-1)).toThrow(/fileDescriptor/);
  });

  it('test_register_rejects_non_ipc_memory_resource: cumem registers any resource (documented deviation); a refused registration leaves nothing', () => {
    const mr = new DeviceMemoryResource(0);
    expect(mr.isIpcEnabled).toBe(false);
    const key = randomUUID();
    expect(mr.register(key)).toBe(mr);
    expect(MemoryResource.fromRegistry(key)).toBe(mr);
    // Refused before it touches the registry: another uuid for a resource that has one.
    const other = randomUUID();
    expect(() => mr.register(other)).toThrow(RangeError);
    expect(() => MemoryResource.fromRegistry(other)).toThrow(RangeError);
    expect(() => MemoryResource.fromRegistry(other)).toThrow(/no memory resource is registered under uuid/);
    mr.close();
    expect(() => MemoryResource.fromRegistry(key)).toThrow(RangeError);
  });

  it('test_ipc_allocation_handle_state_tracks_close: isClosed follows close(), and a closed handle has no descriptor', () => {
    const fd = openSync(tmpdir(), 'r');
    const handle = IpcAllocationHandle.fromFileDescriptor(fd);
    try {
      expect(handle.isClosed).toBe(false);
      expect(handle.fileDescriptor).toBeGreaterThanOrEqual(0);
      handle.close();
      expect(handle.isClosed).toBe(true);
      expect(() => handle.fileDescriptor).toThrow(CudaStateError);
      expect(() => handle.fileDescriptor).toThrow(/closed/);
    } finally {
      handle.close();
      closeSync(fd);
    }
  });
});

interface ErrorReport {
  error: string | null;
}

for (const kind of ipcPoolKinds) {
  describeEachDriver(
    adapters,
    `cuda.core test_errors.py [${kind.id}]`,
    (entry) => {
      beforeAll(() => useSharingDriver(entry));

      /** Runs `action` where the importer runs, on `mr`'s pool, and returns what it threw. */
      async function childError(
        mr: PoolMemoryResource,
        action: string,
        descriptor: unknown = null,
      ): Promise<string | null> {
        const report = await importElsewhere<ErrorReport>(
          entry,
          { role: 'importError', action, pool: poolOf(kind, mr), descriptor },
          [mr.getAllocationHandle().fileDescriptor],
        );
        return report.error;
      }

      it(`test_import_truncated_buffer_descriptor[${kind.id}]: 8 bytes of export data are refused (RangeError) before any import`, () => {
        const mr = kind.make();
        const truncated = { data: toBase64(new Uint8Array(8)), size: NBYTES, uuid: mr.uuid };
        expect(() => Buffer.fromIpcDescriptor(mr, truncated)).toThrow(RangeError);
        expect(() => Buffer.fromIpcDescriptor(mr, truncated)).toThrow(/must hold 64 bytes, got 8/);
        mr.close();
      });

      it(`test_closed_ipc_allocation_handle_rejected_before_registry_hit[${kind.id}]: a closed handle is refused even when its uuid is registered`, () => {
        const mr = kind.make();
        const handle = IpcAllocationHandle.fromFileDescriptor(mr.getAllocationHandle().fileDescriptor, {
          uuid: mr.uuid,
        });
        expect(mr.register(mr.uuid as string)).toBe(mr);
        handle.close();
        const reimport = () =>
          kind.kind === 'device'
            ? DeviceMemoryResource.fromAllocationHandle(0, handle)
            : PinnedMemoryResource.fromAllocationHandle(handle);
        expect(reimport).toThrow(CudaStateError);
        expect(reimport).toThrow(/IpcAllocationHandle/);
        mr.close();
      });

      it(`TestImportOversizedBufferDescriptorSize.test_main[${kind.id}]: a size 100 times the allocation's is a RangeError in the importer`, async () => {
        const mr = kind.make();
        const buffer = mr.allocate(NBYTES);
        expect(await childError(mr, 'oversized', buffer.ipcDescriptor)).toMatch(/^RangeError: .*descriptor/);
        buffer.close();
        mr.close();
      });

      it(`TestAllocFromImportedMr.test_main[${kind.id}]: allocate on an imported resource is a TypeError`, async () => {
        const mr = kind.make();
        expect(await childError(mr, 'allocate')).toMatch(
          /^TypeError: this \w+MemoryResource is imported from another process \(isMapped\): it cannot allocate$/,
        );
        mr.close();
      });

      it(`TestImportWrongMR.test_main[${kind.id}]: a buffer of another pool, opened through this pool's import, is CUDA_ERROR_INVALID_VALUE`, async () => {
        const mr = kind.make();
        const other = new DeviceMemoryResource(0, { maxSize: POOL_SIZE, ipcEnabled: true });
        const buffer = other.allocate(NBYTES);
        expect(await childError(mr, 'otherPool', buffer.ipcDescriptor)).toMatch(
          /^CudaError: .*CUDA_ERROR_INVALID_VALUE/,
        );
        buffer.close();
        other.close();
        mr.close();
      });

      it(`TestImportBuffer.test_main[${kind.id}]: a Buffer given where a descriptor belongs is a TypeError`, async () => {
        const mr = kind.make();
        const buffer = mr.allocate(NBYTES);
        expect(await childError(mr, 'bufferAsDescriptor', buffer.ipcDescriptor)).toMatch(
          /^TypeError: descriptor.data must be a base64 string or a Uint8Array/,
        );
        buffer.close();
        mr.close();
      });

      it(`TestDanglingBuffer.test_main[${kind.id}]: a buffer whose resource was never sent finds nothing in the registry`, async () => {
        const mr = kind.make();
        const other = new DeviceMemoryResource(0, { maxSize: POOL_SIZE, ipcEnabled: true });
        const buffer = other.allocate(NBYTES);
        expect(await childError(mr, 'dangling', buffer.ipcDescriptor)).toMatch(
          /^RangeError: no memory resource is registered under uuid [0-9a-f-]+$/,
        );
        buffer.close();
        other.close();
        mr.close();
      });
    },
    { requires: kind.requires },
  );
}
