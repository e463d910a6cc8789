import { CudaStateError, NotSupportedError } from '@cumem/core-types';
import {
  collectReleasedExports,
  DeviceMemoryResource,
  LegacyPinnedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { dlpackStruct } from '@cumem/memory/internal';
import { referenceNativeFunction } from '@cumem/testing';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { produceDLPack } from '../../test/dlpack-producer.js';
import { adapters, strictTypeError } from '../../test/support.js';
import { DTYPES, type DType } from '../strided/dtype.js';
import { StridedLayout } from '../strided/strided-layout.js';
import { StridedMemoryView } from '../strided/strided-memory-view.js';

const { VersionedField } = dlpackStruct;

describeEachDriver(adapters, 'DLPack', (entry) => {
  let driver: typeof entry.driver;
  let mr: DeviceMemoryResource;
  beforeAll(() => {
    driver = entry.driver;
    useDriver(driver);
    mr = new DeviceMemoryResource(0);
  });

  // A deleter that only marks the struct (the driver's release function writes 4 bytes at it).
  const released = (bytes: Uint8Array) => new DataView(bytes.buffer).getUint32(0, true) !== 1;

  it('round-trips a strided, read-only view through toDLPack / fromDLPack', () => {
    using buffer = mr.allocate(8 * 6 * 4);
    const layout = StridedLayout.dense([8, 6], 4).sliced([2, 6], [null, null, 2]);
    const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32', isReadonly: true });
    const capsule = view.toDLPack();
    const imported = StridedMemoryView.fromDLPack(capsule);
    expect(capsule.isClosed).toBe(true);
    expect([imported.ptr, imported.shape, imported.strides, imported.dtype, imported.readonly]).toEqual([
      view.ptr,
      [4, 3],
      [6, 2],
      'float32',
      true,
    ]);
    expect(() => StridedMemoryView.fromDLPack(capsule)).toThrow(CudaStateError);
    const derived = imported.view();
    imported.close();
    // The deleter (cumem's release function) ran: the export is released.
    expect(collectReleasedExports()).toBe(0);
    expect(() => derived.cudaArrayInterface).toThrow(CudaStateError);
    imported.close();
  });

  it('from(obj) tries toDLPack first, then cudaArrayInterface; CudaBuffer-like interfaces work', () => {
    using buffer = mr.allocate(64);
    const viaDLPack = StridedMemoryView.from(buffer);
    expect([viaDLPack.ptr, viaDLPack.shape, viaDLPack.dtype]).toEqual([buffer.handle, [64], 'uint8']);
    viaDLPack.close();
    const viaInterface = StridedMemoryView.from({ cudaArrayInterface: buffer.cudaArrayInterface });
    expect([viaInterface.ptr, viaInterface.shape]).toEqual([buffer.handle, [64]]);
    const consumer = Stream.create(0);
    StridedMemoryView.from(buffer, { stream: consumer }).close();
    consumer.close();
    expect(collectReleasedExports()).toBe(0);
  });

  it('imports every dtype, ndim 0, negative strides with a byte offset, and the read-only flag', () => {
    using buffer = mr.allocate(256);
    const keep: Uint8Array[] = [];
    for (const dtype of Object.keys(DTYPES) as DType[]) {
      const { bytes, pointer } = produceDLPack(driver, {
        element: buffer.handle,
        shape: [2],
        dtype: DTYPES[dtype].dlpack,
        deleter: driver.nativeReleaseFunction(),
      });
      keep.push(bytes);
      const view = StridedMemoryView.fromDLPack(pointer);
      expect(view.dtype).toBe(dtype);
      view.close();
      expect(released(bytes)).toBe(true);
    }
    const scalar = produceDLPack(driver, { element: buffer.handle, shape: [], deleter: 0n, readonly: true });
    const view0 = StridedMemoryView.fromDLPack(scalar.pointer);
    expect([view0.shape, view0.readonly]).toEqual([[], true]);
    view0.close();
    // Reversed: element 0 is the last int32 of 4, strides -1.
    const reversed = produceDLPack(driver, {
      element: buffer.handle + 12n,
      shape: [4],
      strides: [-1],
      dtype: DTYPES.int32.dlpack,
      deleter: 0n,
    });
    const view1 = StridedMemoryView.fromDLPack(reversed.pointer);
    expect([view1.ptr, view1.strides]).toEqual([buffer.handle + 12n, [-1]]);
    view1.close();
    const legacy = produceDLPack(driver, {
      element: buffer.handle,
      shape: [8],
      versioned: false,
      deleter: 0n,
    });
    expect(StridedMemoryView.fromDLPack(legacy.pointer, { versioned: false }).shape).toEqual([8]);
  });

  it('refuses hostile structs with typed errors and leaves them to the caller', () => {
    using buffer = mr.allocate(64);
    const deleter = driver.nativeReleaseFunction();
    const make = (fields: Partial<Parameters<typeof produceDLPack>[1]>) =>
      produceDLPack(driver, { element: buffer.handle, shape: [64], deleter, ...fields });
    const cases: [ReturnType<typeof make>, (new (...args: never[]) => Error) | Error][] = [
      [make({ dtype: { code: 9, bits: 8, lanes: 1 } }), strictTypeError],
      [make({ dtype: { code: 2, bits: 32, lanes: 4 } }), strictTypeError],
      [make({ deviceType: 7 }), strictTypeError],
      [make({ deviceType: 3 }), strictTypeError],
      [make({ deviceId: 5 }), strictTypeError],
      [make({ shape: [65] }), RangeError],
      [make({ shape: [4], strides: [-1] }), RangeError],
      [make({ shape: [2 ** 40, 2 ** 20] }), RangeError],
    ];
    for (const [{ bytes, pointer }, kind] of cases) {
      expect(() => StridedMemoryView.fromDLPack(pointer)).toThrow(kind);
      expect(released(bytes)).toBe(false);
    }
    const badMajor = make({});
    new DataView(badMajor.bytes.buffer).setUint32(VersionedField.major, 2, true);
    expect(() => StridedMemoryView.fromDLPack(badMajor.pointer)).toThrow(NotSupportedError);
    const negativeNdim = make({});
    new DataView(negativeNdim.bytes.buffer).setInt32(VersionedField.tensor + 16, -1, true);
    expect(() => StridedMemoryView.fromDLPack(negativeNdim.pointer)).toThrow(RangeError);
    new DataView(negativeNdim.bytes.buffer).setInt32(VersionedField.tensor + 16, 33, true);
    expect(() => StridedMemoryView.fromDLPack(negativeNdim.pointer)).toThrow(/ndim 33/);
    const huge = make({});
    new DataView(huge.bytes.buffer).setBigInt64(VersionedField.size, 2n ** 53n + 2n, true);
    expect(() => StridedMemoryView.fromDLPack(huge.pointer)).toThrow(/2\*\*53/);
    const good = make({});
    expect(() => StridedMemoryView.fromDLPack(0n)).toThrow(RangeError);
    expect(() => StridedMemoryView.fromDLPack(good.pointer + 4n)).toThrow(/aligned/);
    // Unmapped memory: the first page of the address space.
    expect(() => StridedMemoryView.fromDLPack(0x1000n)).toThrow(RangeError);
    for (const bad of [-1n, 'x', {}, 1.5]) expect(() => StridedMemoryView.fromDLPack(bad as never)).toThrow();
    expect(() => StridedMemoryView.fromDLPack(good.pointer, { stream: 0 as never })).toThrow(strictTypeError);
    expect(() => StridedMemoryView.fromDLPack(good.pointer, { versioned: 1 as never })).toThrow(
      strictTypeError,
    );
    expect(released(good.bytes)).toBe(false);
    // A null deleter is allowed (nothing to release).
    StridedMemoryView.fromDLPack(make({ deleter: 0n }).pointer).close();
  });

  it('exports pinned memory as kDLCUDAHost and imports it back; refuses views of JS memory', () => {
    const pinned = new LegacyPinnedMemoryResource().allocate(32);
    const view = StridedMemoryView.fromBuffer(pinned, StridedLayout.dense([8], 4), { dtype: 'float32' });
    const back = StridedMemoryView.fromDLPack(view.toDLPack());
    expect([back.ptr, back.isDeviceAccessible]).toEqual([pinned.handle, true]);
    pinned.close();
    back.close();
    expect(() => StridedMemoryView.fromHost(new Float32Array(4)).toDLPack()).toThrow(strictTypeError);
  });

  it.runIf(entry.isReference)(
    entry.isReference
      ? 'calls a producer deleter exactly once: close, or collection of every view'
      : 'calls a producer deleter exactly once — skipped: not applicable: a JS deleter needs the reference driver (on a GPU, test/dlpack-peer.test.ts counts a native one)',
    async () => {
      using buffer = mr.allocate(64);
      let calls = 0;
      const deleter = referenceNativeFunction(() => {
        calls++;
      });
      const first = produceDLPack(driver, { element: buffer.handle, shape: [64], deleter });
      const view = StridedMemoryView.fromDLPack(first.pointer);
      view.view().close();
      expect(calls).toBe(1);
      view.close();
      expect(calls).toBe(1);
      const second = produceDLPack(driver, { element: buffer.handle, shape: [64], deleter });
      (() => {
        StridedMemoryView.fromDLPack(second.pointer).view();
      })();
      for (let round = 0; round < 20 && calls < 2; round++) {
        (globalThis as { gc?: () => void }).gc?.();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(calls).toBe(2);
    },
  );
});
