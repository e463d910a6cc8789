// Issue 45, items 3 and 7 (the @cumem/utils part). A view of a CUDA Array Interface reads its
// bytes by address, so while it lives a resize of the cumem VMM allocation holding them is
// refused (memory's export registry), until the view is closed or collected. A DLPack import
// shows its producer as exportingObject (as cuda.core), never a writable Buffer over the
// imported memory, which may be read-only.
import { CudaStateError } from '@cumem/core-types';
import { bufferBrand, DeviceMemoryResource, useDriver, VirtualMemoryResource } from '@cumem/memory';
import { viewMemory } from '@cumem/memory/internal';
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { produceDLPack } from '../../test/dlpack-producer.js';
import { adapters } from '../../test/support.js';
import { StridedLayout } from '../strided/strided-layout.js';
import { StridedMemoryView } from '../strided/strided-memory-view.js';

// An interface of `bytes` bytes from `address`, as another library hands one over.
const interfaceOf = (address: bigint, bytes: number) => ({
  cudaArrayInterface: { shape: [bytes], typestr: '|u1', data: [address, false], strides: null, version: 3 },
});

describeEachDriver(adapters, 'holds of imported memory', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('a shrink under a live interface import is refused; after close() it goes through', () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const buffer = mr.allocate(4 * g);
    const view = StridedMemoryView.from(interfaceOf(buffer.handle + BigInt(g), 2 * g), { stream: -1 });
    const derived = view.view(StridedLayout.dense([g], 1));
    expect(() => mr.modifyAllocation(buffer, 2 * g)).toThrow(CudaStateError);
    expect(() => mr.modifyAllocation(buffer, 2 * g)).toThrow(
      new RegExp(`a CUDA Array Interface import \\(StridedMemoryView.from\\) holds bytes ${g} to ${3 * g}`),
    );
    expect(buffer.size).toBe(4 * g);
    // A shrink that keeps the imported bytes mapped is not refused.
    mr.modifyAllocation(buffer, 3 * g);
    expect(buffer.size).toBe(3 * g);
    // One close ends the hold of the import (its derived views share it); again does nothing.
    view.close();
    derived.close();
    mr.modifyAllocation(buffer, g);
    expect(buffer.size).toBe(g);
    buffer.close();
    mr.close();
  });

  it('the hold ends when every view of the import is collected', async () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const buffer = mr.allocate(2 * g);
    // Made in a function of its own: no reference to the view is left in this frame.
    const importAndDrop = () => {
      StridedMemoryView.from(interfaceOf(buffer.handle, 2 * g), { stream: -1 }).view();
    };
    importAndDrop();
    expect(() => mr.modifyAllocation(buffer, g)).toThrow(CudaStateError);
    const shrunk = await collectGarbageUntil(() => {
      try {
        mr.modifyAllocation(buffer, g);
        return true;
      } catch (error) {
        if (!(error instanceof CudaStateError)) throw error;
        return false;
      }
    });
    expect(shrunk).toBe(true);
    expect(buffer.size).toBe(g);
    buffer.close();
    mr.close();
  });

  it('an import holds only the VMM allocation its bytes are in; other memory needs no hold', () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const other = mr.allocate(2 * g);
    const held = mr.allocate(2 * g);
    const view = StridedMemoryView.from(interfaceOf(held.handle, 2 * g), { stream: -1 });
    mr.modifyAllocation(other, g);
    expect(other.size).toBe(g);
    expect(() => mr.modifyAllocation(held, g)).toThrow(CudaStateError);
    view.close();
    const pool = new DeviceMemoryResource(0);
    const device = pool.allocate(64);
    const deviceView = StridedMemoryView.from(interfaceOf(device.handle, 64), { stream: -1 });
    deviceView.close();
    deviceView.close();
    device.close();
    other.close();
    held.close();
    mr.close();
  });

  it("a DLPack import's exportingObject is its producer, never a Buffer over the imported memory", () => {
    const mr = new DeviceMemoryResource(0);
    using buffer = mr.allocate(64);
    // A read-only export, imported through the capsule.
    const readonlyView = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([64], 1), {
      isReadonly: true,
    });
    const capsule = readonlyView.toDLPack();
    const imported = StridedMemoryView.fromDLPack(capsule);
    expect(imported.readonly).toBe(true);
    expect(imported.exportingObject).toBe(capsule);
    expect(bufferBrand.has(imported.exportingObject)).toBe(false);
    // Its derived views show the same producer; cumem's packages still find the memory.
    const derived = imported.view();
    expect(derived.exportingObject).toBe(capsule);
    expect(viewMemory.of(derived)?.handle).toBe(buffer.handle);
    imported.close();
    // A raw pointer: the pointer.
    const struct = produceDLPack(entry.driver, {
      element: buffer.handle,
      shape: [8],
      deleter: 0n,
      readonly: true,
    });
    const fromPointer = StridedMemoryView.fromDLPack(struct.pointer);
    expect(fromPointer.exportingObject).toBe(struct.pointer);
    fromPointer.close();
    // An object with toDLPack (StridedMemoryView.from): the object.
    const producer = { toDLPack: (request: object) => readonlyView.toDLPack(request) };
    const viaProducer = StridedMemoryView.from(producer, { stream: -1 });
    expect(viaProducer.exportingObject).toBe(producer);
    expect(bufferBrand.has(viaProducer.exportingObject)).toBe(false);
    viaProducer.close();
    mr.close();
  });
});
