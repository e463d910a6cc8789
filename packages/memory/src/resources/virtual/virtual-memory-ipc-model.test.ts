// VirtualMemoryResource export and import over the reference driver with cross-process sharing
// modelled in this file (the reference itself cannot share: capabilities.interprocess is false):
// an export opens a real file descriptor and notes the chunk's size and properties by inode; an
// import makes a new reference chunk of that size and those properties (a stand-in for the
// exporter's, so bytes are not shared: the GPU test proves them). What this proves is the
// resource's side: the checks, the driver calls, the undo of every failed import.
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CudaError,
  type Driver,
  type MemAllocationProperties,
  VirtualMemoryDeviceAttribute,
} from '@cumem/core-types';
import { createReferenceDriver } from '@cumem/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpcAllocationHandle } from '../../interop/ipc/ipc-allocation-handle.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { VirtualMemoryResource } from './virtual-memory-resource.js';

const folder = mkdtempSync(join(tmpdir(), 'cumem-vmm-ipc-'));
let files = 0;

/** The reference driver with POSIX-fd export and import modelled as the header says. */
function sharingDriver(): { driver: Driver; calls: string[]; live: () => number } {
  const base = createReferenceDriver({ deviceCount: 2 });
  const exported = new Map<number, { size: number; properties: MemAllocationProperties }>();
  const sizes = new Map<bigint, number>();
  const calls: string[] = [];
  let live = 0;
  const driver: Driver = Object.create(base, {
    capabilities: { value: { ...base.capabilities, interprocess: true } },
    deviceGetAttribute: {
      value: (attribute: number, ordinal: number) =>
        attribute === VirtualMemoryDeviceAttribute.HandleTypePosixFileDescriptorSupported
          ? 1
          : base.deviceGetAttribute(attribute, ordinal),
    },
    memCreate: {
      value: (size: number, properties: MemAllocationProperties) => {
        const handle = base.memCreate(size, properties);
        sizes.set(handle, size);
        live++;
        return handle;
      },
    },
    memRelease: {
      value: (handle: bigint) => {
        base.memRelease(handle);
        live--;
      },
    },
    memExportToFileDescriptor: {
      value: (handle: bigint) => {
        const file = join(folder, `chunk-${files++}`);
        writeFileSync(file, '');
        const fd = openSync(file, 'r');
        exported.set(fstatSync(fd).ino, {
          size: sizes.get(handle) as number,
          properties: base.memGetAllocationPropertiesFromHandle(handle),
        });
        return fd;
      },
    },
    memImportFromFileDescriptor: {
      value: (fd: number) => {
        calls.push('import');
        const chunk = exported.get(fstatSync(fd).ino);
        if (chunk === undefined)
          throw new CudaError({
            code: 1,
            codeName: 'CUDA_ERROR_INVALID_VALUE',
            call: 'cuMemImportFromShareableHandle',
          });
        return driver.memCreate(chunk.size, chunk.properties);
      },
    },
  });
  return { driver, calls, live: () => live };
}

describe('VirtualMemoryResource export and import (reference driver, sharing modelled)', () => {
  let model: ReturnType<typeof sharingDriver>;
  beforeAll(() => {
    model = sharingDriver();
    useDriver(model.driver);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('exports one descriptor per chunk and imports them at a new address; close releases the imports', () => {
    using mr = new VirtualMemoryResource(0, { handleType: 'posixFd', reserveSize: 4 * 2 ** 21 });
    const g = mr.granularity;
    const { buffer } = mr.modifyAllocation(mr.allocate(g), g + 1);
    const { descriptor, handles } = mr.exportBuffer(buffer);
    expect(descriptor).toEqual({ size: g + 1, chunks: [g, g] });
    const before = model.live();
    const imported = mr.importBuffer(descriptor, handles);
    expect(imported.handle).not.toBe(buffer.handle);
    expect(imported.size).toBe(g + 1);
    expect(model.live()).toBe(before + 2);
    expect(() => mr.modifyAllocation(imported, 4 * g)).toThrow(/cannot resize/);
    // The handles stay the caller's: a second import of the same chunks is another buffer.
    const again = mr.importBuffer(descriptor, handles);
    imported.close();
    again.close();
    expect(model.live()).toBe(before);
    for (const handle of handles) handle.close();
    buffer.close();
  });

  it('undoes every step of an import the driver refuses', () => {
    using mr = new VirtualMemoryResource(0, { handleType: 'posixFd' });
    using buffer = mr.allocate(1);
    const g = mr.granularity;
    const { handles } = mr.exportBuffer(buffer);
    const before = model.live();
    // A chunk claimed twice its size: cuMemMap refuses it.
    expect(() => mr.importBuffer({ size: 1, chunks: [2 * g] }, handles)).toThrow(/cuMemMap/);
    expect(model.live()).toBe(before);
    // A descriptor that is no exported chunk.
    const stranger = join(folder, 'stranger');
    writeFileSync(stranger, '');
    const strangerFd = openSync(stranger, 'r');
    using notVmm = IpcAllocationHandle.fromFileDescriptor(strangerFd);
    closeSync(strangerFd);
    expect(() => mr.importBuffer({ size: 1, chunks: [g] }, [notVmm])).toThrow(CudaError);
    // A chunk of another device (the properties the driver reports decide, not the descriptor).
    using other = new VirtualMemoryResource(1, { handleType: 'posixFd' });
    using foreign = other.allocate(1);
    const theirs = other.exportBuffer(foreign);
    expect(() => mr.importBuffer(theirs.descriptor, theirs.handles)).toThrow(
      /not a shareable VMM chunk of device 0 \(location 1:1/,
    );
    expect(model.live()).toBe(before + 1);
    for (const handle of [...handles, ...theirs.handles]) handle.close();
  });
});
