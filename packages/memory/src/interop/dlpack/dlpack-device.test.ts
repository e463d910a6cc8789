// Issue 45, DLPack facts: the DLPack device an export names follows what can access the memory,
// as cuda.core's `__dlpack_device__`: pageable JS memory wrapped by Buffer.fromHandle is kDLCPU
// (never kDLCUDAHost, which would let a consumer hand it to a kernel), and memory neither a
// device nor the host can access is refused.

import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { Buffer } from '../../buffer/buffer.js';
import { MemoryResource } from '../../buffer/memory-resource.js';
import { DeviceMemoryResource } from '../../resources/device-memory-resource.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { exportDLPack } from './dlpack-export.js';
import { DLDeviceType, TensorField, VersionedField } from './dlpack-struct.js';

describeEachDriver(adapters, 'DLPack device of an export', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  const deviceTypeOf = (pointer: bigint): number => {
    const bytes = entry.driver.readNativeMemory(pointer, VersionedField.size);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return view.getInt32(VersionedField.tensor + TensorField.deviceType, true);
  };

  it('pageable JS memory wrapped by Buffer.fromHandle is kDLCPU', () => {
    const js = new Uint8Array(4096);
    using buffer = Buffer.fromHandle(entry.driver.addressOf(js), js.byteLength, { owner: js });
    expect(buffer.isDeviceAccessible).toBe(false);
    using capsule = buffer.toDLPack();
    expect(deviceTypeOf(capsule.pointer)).toBe(DLDeviceType.CPU);
  });

  it('memory neither a device nor the host can access is refused, before any struct is made', () => {
    // A resource of the user's may say so of its memory.
    class Inaccessible extends MemoryResource {
      allocate(): never {
        throw new Error('not used');
      }
      deallocate(): void {}
      get isDeviceAccessible(): boolean {
        return false;
      }
      get isHostAccessible(): boolean {
        return false;
      }
      get deviceId(): number {
        return 0;
      }
    }
    using owner = new DeviceMemoryResource(0).allocate(64);
    using buffer = Buffer.fromHandle(owner.handle, 64, { mr: new Inaccessible() });
    expect(() => buffer.toDLPack()).toThrow(/no device and no host can access this memory/);
  });

  it('a source without a Buffer is described by the driver: pageable memory is kDLCPU', () => {
    const js = new Uint8Array(256);
    const source = {
      pointer: entry.driver.addressOf(js),
      shape: [256],
      strides: [1],
      dtype: { code: 1, bits: 8, lanes: 1 },
      readonly: false,
      buffer: undefined,
      keepAlive: js,
      deviceId: -1,
    };
    using capsule = exportDLPack(source);
    expect(deviceTypeOf(capsule.pointer)).toBe(DLDeviceType.CPU);
  });
});
