import { CudaStateError } from '@cumem/core-types';
import { type Buffer, DeviceMemoryResource, PinnedMemoryResource, Stream, useDriver } from '@cumem/memory';
import { download, withCountingDriver } from '@cumem/test-support';
import { createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, expectedCopy, patternBytes, strictTypeError } from '../../test/support.js';
import { StridedLayout } from './strided-layout.js';
import { StridedMemoryView } from './strided-memory-view.js';

describeEachDriver(adapters, 'StridedMemoryView copies', (entry) => {
  let device: DeviceMemoryResource;
  let pinned: PinnedMemoryResource;

  beforeAll(() => {
    useDriver(entry.driver);
    device = new DeviceMemoryResource(0);
    pinned = new PinnedMemoryResource();
  });

  /** A device buffer filled with `bytes`. */
  function upload(bytes: Uint8Array): Buffer {
    const buffer = device.allocate(bytes.length);
    buffer.copyFrom(bytes);
    return buffer;
  }

  /** host -> device -> host through two strided views; checks both device and host bytes. */
  function roundTrip(hostLayout: StridedLayout, deviceLayout: StridedLayout): void {
    const hostBytes = patternBytes(hostLayout.requiredSizeInBytes(), 11);
    const host = new Uint8Array(hostBytes.length);
    host.set(hostBytes);
    const before = patternBytes(deviceLayout.requiredSizeInBytes(), 5);
    const buffer = upload(before);
    const source = StridedMemoryView.fromHost(host).view(hostLayout);
    const deviceView = StridedMemoryView.fromBuffer(buffer, deviceLayout, { dtype: 'uint8' });
    // Host views are uint8 here, so rescale layouts of bigger items to bytes on both sides.
    deviceView.copyFrom(source);
    const onDevice = download(buffer);
    expect(onDevice).toEqual(expectedCopy(before, deviceLayout, hostBytes, hostLayout));
    const back = new Uint8Array(host.length).fill(0);
    const backView = StridedMemoryView.fromHost(back).view(hostLayout);
    deviceView.copyTo(backView);
    expect(back).toEqual(expectedCopy(new Uint8Array(host.length), hostLayout, onDevice, deviceLayout));
    buffer.close();
  }

  it('sizes and places a host array as V8 counts it, whatever its own properties claim', () => {
    const array = new Uint8Array(new ArrayBuffer(64), 16, 16);
    Object.defineProperty(array, 'byteLength', { value: 1 << 20 });
    Object.defineProperty(array, 'byteOffset', { value: 0 });
    Object.defineProperty(array, 'buffer', { value: new ArrayBuffer(1 << 20) });
    const view = StridedMemoryView.fromHost(array);
    expect(view.shape).toEqual([16]);
    const buffer = upload(patternBytes(16, 3));
    StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([16], 1), { dtype: 'uint8' }).copyTo(view);
    const shown = new Uint8Array(
      Reflect.apply(
        Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'buffer')!.get!,
        array,
        [],
      ),
      16,
      16,
    );
    expect(shown).toEqual(patternBytes(16, 3));
    buffer.close();
  });

  it('copies a dense array host -> device -> host', () => {
    roundTrip(StridedLayout.dense([6, 5], 1), StridedLayout.dense([6, 5], 1));
  });

  it('copies a sliced sub-matrix (2D) both ways', () => {
    roundTrip(StridedLayout.dense([7, 9], 1).sliced([1, 6], [2, 8]), StridedLayout.dense([5, 6], 1));
    roundTrip(StridedLayout.dense([5, 6], 1), StridedLayout.dense([7, 9], 1).sliced([1, 6], [2, 8]));
  });

  it('copies transposes and permutations', () => {
    roundTrip(StridedLayout.dense([4, 7], 1), StridedLayout.dense([7, 4], 1).permuted([1, 0]));
    roundTrip(StridedLayout.dense([3, 4, 5], 1).permuted([2, 0, 1]), StridedLayout.dense([5, 3, 4], 1));
    roundTrip(StridedLayout.dense([64, 48], 1), StridedLayout.dense([64, 48], 1, 'F'));
  });

  it('copies reversed and stepped slices', () => {
    roundTrip(
      StridedLayout.dense([6, 8], 1).sliced([null, null, -1], [1, null, 3]),
      StridedLayout.dense([6, 3], 1),
    );
    roundTrip(
      StridedLayout.dense([3, 8], 1),
      StridedLayout.dense([6, 8], 1).sliced([null, null, -2], [null, null, -1]),
    );
  });

  it('copies 1-element and 0-d views, and does nothing for empty ones', () => {
    roundTrip(StridedLayout.dense([5, 5], 1).sliced([2, 3], [4, 5]), StridedLayout.dense([1, 1], 1));
    roundTrip(StridedLayout.dense([5], 1).sliced(3), StridedLayout.dense([], 1));
    roundTrip(StridedLayout.dense([4, 0], 1), StridedLayout.dense([4, 0], 1, 'F'));
  });

  it('copies float32 elements device -> device between any layouts, checked element by element', () => {
    const values = Float32Array.from({ length: 12 * 10 }, (_, i) => i * 1.5 - 7);
    const source = device.allocate(values.byteLength);
    source.copyFrom(values);
    const target = device.allocate(10 * 12 * 4);
    target.copyFrom(new Float32Array(120).fill(-1));
    const srcView = StridedMemoryView.fromBuffer(source, StridedLayout.dense([12, 10], 4), {
      dtype: 'float32',
    });
    const dstView = StridedMemoryView.fromBuffer(target, StridedLayout.dense([10, 12], 4).permuted([1, 0]), {
      dtype: 'float32',
    });
    dstView.copyFrom(srcView);
    const result = new Float32Array(120);
    target.copyTo(result);
    for (let i = 0; i < 12; i++) {
      for (let j = 0; j < 10; j++) expect(result[j * 12 + i]).toBe(values[i * 10 + j]);
    }
    source.close();
    target.close();
  });

  it('copies a sub-matrix from pinned host memory as one 2D copy', () => {
    const rows = 64;
    const cols = 48;
    const host = pinned.allocate(rows * cols * 4);
    const bytes = patternBytes(host.size, 3);
    host.hostView().set(bytes);
    const hostLayout = StridedLayout.dense([rows, cols], 4).sliced([8, 40], [4, 36]);
    const target = device.allocate(32 * 32 * 4);
    const report = StridedMemoryView.fromBuffer(target, StridedLayout.dense([32, 32], 4)).copyFrom(
      StridedMemoryView.fromBuffer(host, hostLayout),
    );
    expect(report.path).toBe('direct');
    expect(report.plan).toMatchObject({ calls: 1, kind: '2d' });
    expect(download(target)).toEqual(
      expectedCopy(new Uint8Array(target.size), StridedLayout.dense([32, 32], 4), bytes, hostLayout),
    );
    host.close();
    target.close();
  });

  it('stages a host transpose through the CPU instead of thousands of element copies', () => {
    const n = 256;
    const host = Float32Array.from({ length: n * n }, (_, i) => i);
    const target = device.allocate(n * n * 4);
    const view = StridedMemoryView.fromBuffer(target, StridedLayout.dense([n, n], 4), { dtype: 'float32' });
    const report = view.copyFrom(StridedMemoryView.fromHost(host, { shape: [n, n], strides: [1, n] }));
    expect(report.path).toBe('staged');
    const result = new Float32Array(n * n);
    target.copyTo(result);
    for (let i = 0; i < n; i += 17) for (let j = 0; j < n; j += 13) expect(result[i * n + j]).toBe(j * n + i);
    target.close();
  });

  it('copies random layout pairs exactly (property test)', () => {
    const arrangement = (ndim: number) =>
      fc.record({
        order: fc.shuffledSubarray([...Array(ndim).keys()], { minLength: ndim, maxLength: ndim }),
        pad: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: ndim, maxLength: ndim }),
        reverse: fc.array(fc.boolean(), { minLength: ndim, maxLength: ndim }),
      });
    const build = (
      shape: number[],
      a: { order: number[]; pad: number[]; reverse: boolean[] },
      itemsize: number,
    ) => {
      const strides = new Array<number>(shape.length).fill(0);
      let stride = 1;
      for (let i = a.order.length - 1; i >= 0; i--) {
        strides[a.order[i]!] = stride;
        stride *= shape[a.order[i]!]! + a.pad[a.order[i]!]!;
      }
      return new StridedLayout(shape, strides, itemsize).sliced(
        ...a.reverse.map((r) => (r ? ([null, null, -1] as const) : null)),
      );
    };
    fc.assert(
      fc.property(
        fc
          .array(fc.integer({ min: 1, max: 4 }), { maxLength: 4 })
          .chain((shape) =>
            fc.tuple(fc.constant(shape), arrangement(shape.length), arrangement(shape.length)),
          ),
        ([shape, a, b]) => roundTrip(build(shape, a, 1), build(shape, b, 1)),
      ),
      { numRuns: 40 },
    );
  });

  it('runs the README example (transposed window of a host matrix)', () => {
    const host = Float32Array.from({ length: 64 * 64 }, (_, i) => i);
    const buffer = device.allocate(32 * 32 * 4);
    const deviceView = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([32, 32], 4), {
      dtype: 'float32',
    });
    const window = StridedMemoryView.fromHost(host, { shape: [64, 64] }).view(
      StridedLayout.dense([64, 64], 4).sliced([16, 48], [8, 40]).permuted([1, 0]),
    );
    deviceView.copyFrom(window);
    const result = new Float32Array(32 * 32);
    buffer.copyTo(result);
    for (let i = 0; i < 32; i++) {
      for (let j = 0; j < 32; j++) expect(result[i * 32 + j]).toBe((16 + j) * 64 + (8 + i));
    }
    expect(deviceView.cudaArrayInterface).toMatchObject({ typestr: '<f4', version: 3, strides: null });
    buffer.close();
  });

  it('orders an explicit stream and waits only when asked', () => {
    const stream = Stream.create(0);
    const host = new Uint8Array(64).fill(9);
    const target = device.allocate(64);
    StridedMemoryView.fromBuffer(target, StridedLayout.dense([64], 1)).copyFrom(
      StridedMemoryView.fromHost(host),
      {
        stream,
        blocking: false,
      },
    );
    stream.sync();
    expect(download(target)).toEqual(host);
    target.close();
    stream.close();
  });

  it('blocks host<->device copies by default even on a given stream, as cuda.core', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const stream = Stream.create(0);
      const a = device.allocate(64);
      const b = device.allocate(64);
      const host = new Uint8Array(64).fill(7);
      const back = new Uint8Array(64);
      const aView = StridedMemoryView.fromBuffer(a, StridedLayout.dense([64], 1));
      const bView = StridedMemoryView.fromBuffer(b, StridedLayout.dense([64], 1));
      const syncs = () => log.calls.filter((call) => call === 'streamSynchronize').length;
      log.reset();
      aView.copyFrom(StridedMemoryView.fromHost(host), { stream });
      expect(syncs()).toBe(1);
      bView.copyFrom(aView, { stream });
      expect(syncs()).toBe(1);
      // The host array holds the bytes when the call returns: no stream.sync() before reading.
      bView.copyTo(StridedMemoryView.fromHost(back), { stream });
      expect(syncs()).toBe(2);
      expect(back).toEqual(host);
      const pinnedBuffer = pinned.allocate(64);
      StridedMemoryView.fromBuffer(pinnedBuffer, StridedLayout.dense([64], 1)).copyFrom(bView, { stream });
      expect(syncs()).toBe(3);
      expect(pinnedBuffer.hostView()).toEqual(host);
      aView.copyTo(StridedMemoryView.fromHost(back), { stream, blocking: false });
      bView.copyFrom(aView, { stream, blocking: true });
      expect(syncs()).toBe(4);
      bView.copyFrom(aView);
      expect(syncs()).toBe(5);
      stream.sync();
      pinnedBuffer.close();
      a.close();
      b.close();
      stream.close();
    });
  });

  it('refuses mismatches before any driver call', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const buffer = device.allocate(64);
      const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([4, 4], 4), { dtype: 'float32' });
      const wrongShape = StridedMemoryView.fromHost(new Float32Array(12), { shape: [3, 4] });
      const wrongType = StridedMemoryView.fromHost(new Int32Array(16), { shape: [4, 4] });
      const good = StridedMemoryView.fromHost(new Float32Array(16), { shape: [4, 4] });
      log.reset();
      expect(() => view.copyFrom(wrongShape)).toThrow(RangeError);
      expect(() => view.copyFrom(wrongType)).toThrow(strictTypeError);
      expect(() => view.copyFrom(new Float32Array(16) as never)).toThrow(strictTypeError);
      expect(() => view.copyFrom(view, { blocking: 1 } as never)).toThrow(strictTypeError);
      expect(() => view.copyFrom(view, { stream: 5 } as never)).toThrow(strictTypeError);
      const readonly = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([4, 4], 4), {
        dtype: 'float32',
        isReadonly: true,
      });
      expect(() => readonly.copyFrom(view)).toThrow(strictTypeError);
      const broadcast = view.view(new StridedLayout([4, 4], [0, 1], 4));
      expect(() => broadcast.copyFrom(view)).toThrow(RangeError);
      expect(log.calls).toEqual([]);
      buffer.close();
      expect(() => view.copyFrom(good)).toThrow(CudaStateError);
      expect(log.calls.filter((call) => call.startsWith('memcpy'))).toEqual([]);
    });
  });
});

describe('StridedMemoryView construction', () => {
  beforeAll(() => useDriver(createReferenceDriver()));

  it('checks buffer size, dtype and kinds', () => {
    expect(() => StridedMemoryView.fromHost(new DataView(new ArrayBuffer(4)))).toThrow(strictTypeError);
    expect(() => StridedMemoryView.fromHost(new Float32Array(4), { shape: [5] })).toThrow(RangeError);
    const view = StridedMemoryView.fromHost(new Float64Array(6), { shape: [2, 3] });
    expect(view.dtype).toBe('float64');
    expect(view.deviceId).toBe(-1);
    expect(view.isDeviceAccessible).toBe(false);
    expect(view.strides).toEqual([3, 1]);
    expect(() => view.view(StridedLayout.dense([2, 3], 4), 'float64')).toThrow(strictTypeError);
    expect(view.view(StridedLayout.dense([12], 4)).dtype).toBe('uint32');
    expect(() => view.view(StridedLayout.dense([13], 4))).toThrow(RangeError);
    expect(() => view.cudaArrayInterface).toThrow(strictTypeError);
  });
});
