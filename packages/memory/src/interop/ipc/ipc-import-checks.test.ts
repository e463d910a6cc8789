// The importer's side of issue 10 (classes 3 and 4) over an in-process IPC stand-in on the
// reference driver: descriptors that claim too much, pools imported as the wrong kind, one
// descriptor opened twice, and allocation handles that own a duplicate of the caller's fd.
// ipc.test.ts runs the same cases across real processes on a GPU.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CudaStateError } from '@cumem/core-types';
import { createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { closeQuietly, emulateIpc, type IpcEmulation } from '../../../test/ipc-emulation.js';
import { Buffer } from '../../buffer/buffer.js';
import { DeviceMemoryResource } from '../../resources/device-memory-resource.js';
import { PinnedMemoryResource } from '../../resources/pinned-memory-resource.js';
import type { PoolMemoryResource } from '../../resources/pool/pool-memory-resource.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { IpcAllocationHandle } from './ipc-allocation-handle.js';

const size = 64 * 1024;

describe('IPC imports over the in-process stand-in (reference driver)', () => {
  let ipc: IpcEmulation;
  beforeEach(() => {
    ipc = emulateIpc(createReferenceDriver());
    useDriver(ipc.driver);
  });

  function exported(kind: 'device' | 'pinned'): { mr: PoolMemoryResource; buffer: Buffer } {
    const mr =
      kind === 'device'
        ? new DeviceMemoryResource(0, { ipcEnabled: true })
        : new PinnedMemoryResource({ ipcEnabled: true });
    const buffer = mr.allocate(size);
    buffer.fill(0x42);
    return { mr, buffer };
  }

  function imported(exporter: PoolMemoryResource, as: 'device' | 'pinned'): PoolMemoryResource {
    const handle = IpcAllocationHandle.fromFileDescriptor(exporter.getAllocationHandle().fileDescriptor);
    return as === 'device'
      ? DeviceMemoryResource.fromAllocationHandle(0, handle)
      : PinnedMemoryResource.fromAllocationHandle(handle);
  }

  for (const kind of ['device', 'pinned'] as const) {
    it(`${kind}: a descriptor larger than the exported allocation is a RangeError, and the import is undone`, () => {
      const { mr, buffer } = exported(kind);
      const importer = imported(mr, kind);
      const descriptor = buffer.ipcDescriptor;
      expect(() => Buffer.fromIpcDescriptor(importer, { ...descriptor, size: 1 << 30 })).toThrow(RangeError);
      expect(() => Buffer.fromIpcDescriptor(importer, { ...descriptor, size: size + 1 })).toThrow(
        /RANGE_SIZE/,
      );
      expect(ipc.mapped.size).toBe(0);
      const opened = Buffer.fromIpcDescriptor(importer, descriptor);
      const bytes = new Uint8Array(size);
      opened.copyTo(bytes);
      expect(bytes.every((byte) => byte === 0x42)).toBe(true);
      opened.close();
      expect(ipc.mapped.size).toBe(0);
      importer.close();
      buffer.close();
      mr.close();
    });

    it(`${kind}: one descriptor opened twice gives two buffers, and the mapping is freed once, at the last close`, () => {
      const { mr, buffer } = exported(kind);
      const importer = imported(mr, kind);
      const first = Buffer.fromIpcDescriptor(importer, buffer.ipcDescriptor);
      const second = Buffer.fromIpcDescriptor(importer, buffer.ipcDescriptor);
      expect(second.handle).toBe(first.handle);
      // neither may be freed under the other
      expect(() => importer.deallocate(first.handle, size)).toThrow(CudaStateError);
      expect(() => Buffer.fromHandle(first.handle, size, { mr: importer })).toThrow(CudaStateError);
      first.close();
      expect(ipc.unmaps).toBe(0);
      second.fill(0x17);
      // the pool is destroyed only after its last buffer is closed
      importer.close();
      expect(ipc.pools.size).toBe(1);
      second.close();
      expect(ipc.unmaps).toBe(1);
      expect(ipc.mapped.size).toBe(0);
      expect(ipc.pools.size).toBe(0);
      const back = new Uint8Array(size);
      buffer.copyTo(back);
      expect(back.every((byte) => byte === 0x17)).toBe(true);
      buffer.close();
      mr.close();
    });

    // The driver refuses cuMemPoolExportPointer on a pointer it imported; the stand-in's exports
    // would not, so any call reaching it here is counted as the mistake it would be on a GPU.
    it(`${kind}: an imported buffer is shared onward by the descriptor it was opened with, never re-exported`, () => {
      const { mr, buffer } = exported(kind);
      const importer = imported(mr, kind);
      const second = imported(mr, kind);
      const descriptor = buffer.ipcDescriptor;
      const exportPointer = vi.spyOn(ipc.driver, 'memPoolExportPointer');
      const opened = Buffer.fromIpcDescriptor(importer, descriptor);
      // The same export data and size; the uuid is the import's (its handle's, null here).
      expect(opened.ipcDescriptor).toEqual({ ...descriptor, uuid: importer.uuid });
      // Opened again through another import of the pool: that import does not know its descriptor.
      const again = Buffer.fromIpcDescriptor(second, descriptor);
      expect(again.handle).toBe(opened.handle);
      expect(() => again.ipcDescriptor).toThrow(/imported through another import of its pool/);
      expect(exportPointer).not.toHaveBeenCalled();
      exportPointer.mockRestore();
      again.close();
      opened.close();
      expect(() => opened.ipcDescriptor).toThrow(CudaStateError);
      second.close();
      importer.close();
      buffer.close();
      mr.close();
    });
  }

  const otherKinds = [
    ['pinned', 'device'],
    ['device', 'pinned'],
  ] as const;
  /** A `kind` pool's buffer imported through its handle as an `as` pool: refused, nothing mapped. */
  function refusedAsOtherKind(kind: 'device' | 'pinned', as: 'device' | 'pinned') {
    const { mr, buffer } = exported(kind);
    const importer = imported(mr, as);
    expect(() => Buffer.fromIpcDescriptor(importer, buffer.ipcDescriptor)).toThrow(TypeError);
    expect(() => Buffer.fromIpcDescriptor(importer, buffer.ipcDescriptor)).toThrow(/another kind of pool/);
    expect(ipc.mapped.size).toBe(0);
    return { mr, buffer, importer };
  }

  it("a pinned pool's handle imported as DeviceMemoryResource, and the reverse, are TypeErrors before any Buffer", () => {
    for (const [kind, as] of otherKinds) {
      const { mr, buffer, importer } = refusedAsOtherKind(kind, as);
      importer.close();
      buffer.close();
      mr.close();
    }
  });

  it('once a buffer showed the imported pool is of another kind, every later use of the resource is a TypeError', () => {
    for (const [kind, as] of otherKinds) {
      const { mr, buffer, importer } = refusedAsOtherKind(kind, as);
      expect(() => importer.attributes).toThrow(TypeError);
      if (importer instanceof DeviceMemoryResource) {
        expect(() => importer.peerAccessibleBy).toThrow(/another kind of pool/);
      }
      importer.close();
      expect(() => importer.attributes).toThrow(CudaStateError);
      buffer.close();
      mr.close();
    }
  });

  it('a device pool imported on another device is a TypeError naming both devices', () => {
    ipc = emulateIpc(createReferenceDriver({ deviceCount: 2 }));
    useDriver(ipc.driver);
    const { mr, buffer } = exported('device');
    const handle = IpcAllocationHandle.fromFileDescriptor(mr.getAllocationHandle().fileDescriptor);
    const importer = DeviceMemoryResource.fromAllocationHandle(1, handle);
    expect(() => Buffer.fromIpcDescriptor(importer, buffer.ipcDescriptor)).toThrow(
      /on device 1 holds memory of device 0/,
    );
    expect(ipc.mapped.size).toBe(0);
    importer.close();
    buffer.close();
    mr.close();
  });
});

describeEachDriver(adapters, 'IpcAllocationHandle.fromFileDescriptor owns a duplicate', (entry) => {
  beforeEach(() => useDriver(entry.driver));

  it("closing the handle leaves the caller's descriptor open, and the other way round", () => {
    const fd = openSync(tmpdir(), 'r');
    const handle = IpcAllocationHandle.fromFileDescriptor(fd, { uuid: 'u' });
    try {
      expect(handle.fileDescriptor).not.toBe(fd);
      expect(fstatSync(handle.fileDescriptor).ino).toBe(fstatSync(fd).ino);
      handle.close();
      expect(handle.isClosed).toBe(true);
      expect(fstatSync(fd).isDirectory()).toBe(true);
    } finally {
      closeQuietly(fd);
    }
    const again = openSync(tmpdir(), 'r');
    const second = IpcAllocationHandle.fromFileDescriptor(again);
    closeSync(again);
    // an unrelated file may now get the caller's old number; closing the handle must not close it
    const unrelated = openSync(tmpdir(), 'r');
    try {
      expect(fstatSync(second.fileDescriptor).isDirectory()).toBe(true);
      second.close();
      expect(fstatSync(unrelated).isDirectory()).toBe(true);
    } finally {
      closeSync(unrelated);
    }
  });

  it('refuses a descriptor that is not open (RangeError, EBADF) or not a number', () => {
    const fd = openSync(tmpdir(), 'r');
    closeSync(fd);
    expect(() => IpcAllocationHandle.fromFileDescriptor(fd)).toThrow(/EBADF/);
    expect(() => IpcAllocationHandle.fromFileDescriptor(fd)).toThrow(RangeError);
    expect(() => IpcAllocationHandle.fromFileDescriptor(-1)).toThrow(RangeError);
    expect(() => IpcAllocationHandle.fromFileDescriptor('3' as never)).toThrow(TypeError);
  });
});
