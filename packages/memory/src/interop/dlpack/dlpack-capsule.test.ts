import { CudaStateError } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { DeviceMemoryResource } from '../../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../../resources/legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from '../../resources/managed/managed-memory-resource.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { Stream } from '../../stream/stream.js';
import { collectReleasedExports, DLPackCapsule } from './dlpack-capsule.js';
import { DLDeviceType, LegacyField, TensorField, VersionedField } from './dlpack-struct.js';

function fieldsOf(bytes: Uint8Array) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

describeEachDriver(adapters, 'DLPack export (Buffer.toDLPack)', (entry) => {
  let driver: typeof entry.driver;
  beforeAll(() => {
    driver = entry.driver;
    useDriver(driver);
  });

  it('writes a DLManagedTensorVersioned: version 1.0, deleter, flags, 1-D uint8 tensor', () => {
    const mr = new DeviceMemoryResource(0);
    using buffer = mr.allocate(1000);
    using capsule = buffer.toDLPack();
    expect(capsule.version).toEqual([1, 0]);
    const struct = fieldsOf(driver.readNativeMemory(capsule.pointer, VersionedField.size + 16));
    expect(struct.getUint32(VersionedField.major, true)).toBe(1);
    expect(struct.getUint32(VersionedField.minor, true)).toBe(0);
    expect(struct.getBigUint64(VersionedField.deleter, true)).toBe(driver.nativeReleaseFunction());
    expect(struct.getBigUint64(VersionedField.flags, true)).toBe(0n);
    const t = VersionedField.tensor;
    const data = struct.getBigUint64(t + TensorField.data, true);
    expect(data % 256n).toBe(0n);
    expect(data + struct.getBigUint64(t + TensorField.byteOffset, true)).toBe(buffer.handle);
    expect(struct.getInt32(t + TensorField.deviceType, true)).toBe(DLDeviceType.CUDA);
    expect(struct.getInt32(t + TensorField.deviceId, true)).toBe(0);
    expect(struct.getInt32(t + TensorField.ndim, true)).toBe(1);
    expect([struct.getUint8(t + TensorField.dtypeCode), struct.getUint8(t + TensorField.dtypeBits)]).toEqual([
      1, 8,
    ]);
    expect(struct.getUint16(t + TensorField.dtypeLanes, true)).toBe(1);
    const shape = struct.getBigUint64(t + TensorField.shape, true);
    expect(shape).toBe(capsule.pointer + 80n);
    expect(fieldsOf(driver.readNativeMemory(shape, 16)).getBigInt64(0, true)).toBe(1000n);
    expect(fieldsOf(driver.readNativeMemory(shape, 16)).getBigInt64(8, true)).toBe(1n);
  });

  it('names pinned memory kDLCUDAHost and managed memory kDLCUDAManaged; a legacy struct on request', () => {
    const pinned = new LegacyPinnedMemoryResource().allocate(64);
    using pinnedCapsule = pinned.toDLPack({ maxVersion: [0, 8] });
    expect(pinnedCapsule.version).toEqual([0, 8]);
    const legacy = fieldsOf(driver.readNativeMemory(pinnedCapsule.pointer, LegacyField.size));
    expect(legacy.getInt32(TensorField.deviceType, true)).toBe(DLDeviceType.CUDAHost);
    expect(legacy.getBigUint64(LegacyField.deleter, true)).toBe(driver.nativeReleaseFunction());
    pinned.close();
    const managed = new ManagedMemoryResource().allocate(64);
    using managedCapsule = managed.toDLPack();
    const struct = fieldsOf(driver.readNativeMemory(managedCapsule.pointer, VersionedField.size));
    expect(struct.getInt32(VersionedField.tensor + TensorField.deviceType, true)).toBe(
      DLDeviceType.CUDAManaged,
    );
    managed.close();
  });

  it('keeps the memory allocated while a consumer holds it, past Buffer.close, until the deleter ran', () => {
    const pool = new DeviceMemoryResource(0, {});
    const buffer = pool.allocate(4096);
    const capsule = buffer.toDLPack();
    const pointer = capsule.consume();
    expect(() => capsule.consume()).toThrow(CudaStateError);
    expect(capsule.isClosed).toBe(true);
    buffer.close();
    expect(pool.attributes.usedMemCurrent).toBe(4096);
    expect(collectReleasedExports()).toBeGreaterThanOrEqual(1);
    // The consumer is done: it calls the deleter (here from JS; the GPU suite calls it from a
    // native thread of a C library).
    const deleter = fieldsOf(driver.readNativeMemory(pointer, VersionedField.size)).getBigUint64(
      VersionedField.deleter,
      true,
    );
    driver.callNativeFunction(deleter, pointer);
    expect(collectReleasedExports()).toBe(0);
    Stream.create(0).sync();
    expect(pool.attributes.usedMemCurrent).toBe(0);
    pool.close();
  });

  it('releases an unconsumed capsule on close; refuses bad options before any driver call', () => {
    const pool = new DeviceMemoryResource(0, {});
    const buffer = pool.allocate(256);
    const capsule = buffer.toDLPack();
    buffer.close();
    expect(pool.attributes.usedMemCurrent).toBe(256);
    capsule.close();
    capsule.close();
    expect(() => capsule.consume()).toThrow(CudaStateError);
    Stream.create(0).sync();
    expect(pool.attributes.usedMemCurrent).toBe(0);
    const other = pool.allocate(16);
    for (const bad of [
      { maxVersion: [1] },
      { maxVersion: '1.0' },
      { maxVersion: [-1, 0] },
      { stream: 0 },
      5,
    ]) {
      expect(() => other.toDLPack(bad as never)).toThrow(TypeError);
    }
    // The consumer stream waits for the allocation stream (an event): the call returns at once.
    const consumer = Stream.create(0);
    other.toDLPack({ stream: consumer }).close();
    consumer.close();
    expect(() => other.toDLPack({ stream: consumer })).toThrow(CudaStateError);
    other.close();
    expect(() => other.toDLPack()).toThrow(CudaStateError);
    expect(DLPackCapsule.isInstance(capsule)).toBe(true);
    expect(() => new (DLPackCapsule as unknown as new () => unknown)()).toThrow(TypeError);
    pool.close();
  });
});
