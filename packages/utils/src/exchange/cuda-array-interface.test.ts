import { NotSupportedError, PointerHandleAttribute } from '@cumem/core-types';
import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';
import { countingDriver, createReferenceDriver } from '@cumem/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { strictTypeError } from '../../test/support.js';
import { StridedLayout } from '../strided/strided-layout.js';
import { StridedMemoryView } from '../strided/strided-memory-view.js';

describe('CUDA Array Interface', () => {
  let device: DeviceMemoryResource;

  beforeAll(() => {
    useDriver(createReferenceDriver());
    device = new DeviceMemoryResource(0);
  });

  it('exports a view and imports it back', () => {
    const buffer = device.allocate(8 * 6 * 4);
    const layout = StridedLayout.dense([8, 6], 4).sliced([2, 6], [null, null, 2]);
    const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32', isReadonly: true });
    const cai = view.cudaArrayInterface;
    expect(cai).toEqual({
      shape: [4, 3],
      typestr: '<f4',
      data: [buffer.handle + 48n, true],
      strides: [24, 8],
      version: 3,
    });
    const imported = StridedMemoryView.from({ cudaArrayInterface: cai });
    expect(imported.ptr).toBe(view.ptr);
    expect(imported.shape).toEqual([4, 3]);
    expect(imported.strides).toEqual([6, 2]);
    expect(imported.dtype).toBe('float32');
    expect(imported.readonly).toBe(true);
    expect(imported.deviceId).toBe(0);
    expect(
      StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([48], 4)).cudaArrayInterface.strides,
    ).toBeNull();
    buffer.close();
  });

  it('imports negative strides by moving the layout offset', () => {
    const buffer = device.allocate(16);
    const imported = StridedMemoryView.from({
      cudaArrayInterface: {
        shape: [4],
        typestr: '<i4',
        data: [buffer.handle + 12n, false],
        strides: [-4],
        version: 3,
      },
    });
    expect(imported.ptr).toBe(buffer.handle + 12n);
    expect(imported.layout.offset).toBe(3);
    expect(imported.strides).toEqual([-1]);
    buffer.close();
  });

  it('refuses malformed interfaces', () => {
    const good = { shape: [4], typestr: '<f4', data: [4096n, false], strides: null, version: 3 };
    expect(() => StridedMemoryView.from({})).toThrow(strictTypeError);
    expect(() => StridedMemoryView.from(42)).toThrow(strictTypeError);
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, version: 2 } })).toThrow(RangeError);
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, typestr: '>f4' } })).toThrow(
      RangeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, typestr: 4 } })).toThrow(
      strictTypeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, strides: [6] } })).toThrow(
      RangeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, data: [4096n] } })).toThrow(
      strictTypeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, stream: 0 } })).toThrow(RangeError);
  });

  describe('stream (only what cumem can vouch for)', () => {
    function cai(pointer: bigint, stream: unknown) {
      return {
        cudaArrayInterface: { shape: [4], typestr: '<f4', data: [pointer, false], version: 3, stream },
      };
    }

    it('accepts absent/null, the default streams 1 and 2, and a Stream of @cumem/memory', () => {
      const buffer = device.allocate(16);
      const own = Stream.create(0);
      for (const stream of [undefined, null, 1, 2, 1n, 2n, own]) {
        expect(StridedMemoryView.from(cai(buffer.handle, stream)).shape).toEqual([4]);
      }
      own.close();
      buffer.close();
    });

    it('refuses a foreign CUstream handle unless trustForeignStream, and 0 always', () => {
      const buffer = device.allocate(16);
      const live = Stream.create(0);
      expect(() => StridedMemoryView.from(cai(buffer.handle, 0xdeadbeefn))).toThrow(/trustForeignStream/);
      expect(() => StridedMemoryView.from(cai(buffer.handle, live.handle))).toThrow(strictTypeError);
      expect(
        StridedMemoryView.from(cai(buffer.handle, live.handle), { trustForeignStream: true }).shape,
      ).toEqual([4]);
      expect(() => StridedMemoryView.from(cai(buffer.handle, 0), { trustForeignStream: true })).toThrow(
        RangeError,
      );
      expect(() => StridedMemoryView.from(cai(buffer.handle, 1), { trustForeignStream: 1 as never })).toThrow(
        strictTypeError,
      );
      // A Stream is taken by its brand: an object inheriting from one, or a Proxy of one, is no
      // Stream (the producer's is then checked as a handle, the consumer's refused by name).
      for (const imitation of [Object.create(live), new Proxy(live, {})]) {
        expect(() => StridedMemoryView.from(cai(buffer.handle, imitation))).toThrow(
          /cudaArrayInterface\.stream/,
        );
        expect(() => StridedMemoryView.from(cai(buffer.handle, 1), { stream: imitation })).toThrow(
          /stream must be a Stream of @cumem\/memory or -1/,
        );
      }
      live.close();
      expect(() => StridedMemoryView.from(cai(buffer.handle, live))).toThrow(/closed/);
      buffer.close();
    });

    it('orders the consumer stream after the producer on the GPU (event + wait), never a CPU wait', () => {
      const { driver, log } = countingDriver(createReferenceDriver());
      useDriver(driver);
      try {
        const mr = new DeviceMemoryResource(0);
        const buffer = mr.allocate(16);
        const producer = Stream.create(0);
        const consumer = Stream.create(0);
        log.reset();
        StridedMemoryView.from(cai(buffer.handle, producer), { stream: consumer });
        expect(log.calls).toContain('eventRecord');
        expect(log.calls).toContain('streamWaitEvent');
        expect(log.calls).not.toContain('streamSynchronize');
        log.reset();
        StridedMemoryView.from(cai(buffer.handle, 2), { stream: consumer });
        expect(log.calls).toEqual(expect.arrayContaining(['eventRecord', 'streamWaitEvent']));
        expect(log.calls).not.toContain('streamSynchronize');
        log.reset();
        StridedMemoryView.from(cai(buffer.handle, producer), { stream: -1 });
        expect(log.calls).not.toContain('streamWaitEvent');
        expect(log.calls).not.toContain('streamSynchronize');
        log.reset();
        // Omitted: the per-device default stream waits.
        StridedMemoryView.from(cai(buffer.handle, producer));
        expect(log.calls).toContain('streamWaitEvent');
        for (const bad of [0, 1, -2, 'x', {}, null]) {
          log.reset();
          expect(() =>
            StridedMemoryView.from(cai(buffer.handle, producer), { stream: bad as never }),
          ).toThrow(strictTypeError);
          expect(log.calls).toEqual([]);
        }
        consumer.close();
        expect(() => StridedMemoryView.from(cai(buffer.handle, producer), { stream: consumer })).toThrow(
          /closed/,
        );
        producer.close();
        buffer.close();
      } finally {
        useDriver(createReferenceDriver());
        device = new DeviceMemoryResource(0);
      }
    });
  });

  it('checks host-pool memory by its size where the driver answers a range start that does not hold it', () => {
    // A CUDA 13.0 driver answered RANGE_START_ADDR 0x0, 0x1000, ... for buffers of a host
    // (pinned) pool, with RANGE_SIZE their size: memory's allocationRange takes the
    // pointer as the start then, and the import checks against that, not against 0x1000.
    const driver = createReferenceDriver();
    const rangeStart = driver.pointerGetHandleAttribute.bind(driver);
    driver.pointerGetHandleAttribute = (pointer, attribute) =>
      attribute === PointerHandleAttribute.RangeStartAddress ? 0x1000n : rangeStart(pointer, attribute);
    useDriver(driver);
    try {
      const pool = new DeviceMemoryResource(0);
      const buffer = pool.allocate(4096);
      const of = (data: bigint, shape: number[]) => ({
        cudaArrayInterface: { shape, typestr: '|u1', data: [data, false], strides: null, version: 3 },
      });
      expect(StridedMemoryView.from(of(buffer.handle, [4096])).shape).toEqual([4096]);
      expect(() => StridedMemoryView.from(of(buffer.handle, [4097]))).toThrow(
        /past the end of its 4096-byte/,
      );
      buffer.close();
      pool.close();
    } finally {
      useDriver(createReferenceDriver());
      device = new DeviceMemoryResource(0);
    }
  });

  it('refuses data that reaches past its allocation, or a null pointer with elements', () => {
    const buffer = device.allocate(16);
    const of = (data: bigint, shape: number[], strides: number[] | null = null) => ({
      cudaArrayInterface: { shape, typestr: '<i4', data: [data, false], strides, version: 3 },
    });
    expect(StridedMemoryView.from(of(buffer.handle, [4])).shape).toEqual([4]);
    expect(() => StridedMemoryView.from(of(buffer.handle, [5]))).toThrow(
      /past the end of its 16-byte allocation/,
    );
    expect(() => StridedMemoryView.from(of(buffer.handle + 4n, [4]))).toThrow(RangeError);
    expect(() => StridedMemoryView.from(of(buffer.handle, [2], [-4]))).toThrow(RangeError);
    expect(() => StridedMemoryView.from(of(0n, [1]))).toThrow(/null for an array of 1 elements/);
    expect(StridedMemoryView.from(of(0n, [0])).shape).toEqual([0]);
    buffer.close();
  });

  it('refuses a mask (masked arrays, as Numba does) before any driver call', () => {
    const { driver, log } = countingDriver(createReferenceDriver());
    useDriver(driver);
    try {
      const buffer = new DeviceMemoryResource(0).allocate(16);
      const base = { shape: [4], typestr: '<i4', data: [buffer.handle, false], version: 3 };
      log.reset();
      for (const mask of [{ cudaArrayInterface: base }, true, 0]) {
        expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...base, mask } })).toThrow(
          NotSupportedError,
        );
        expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...base, mask } })).toThrow(/mask/);
      }
      expect(log.calls).toEqual([]);
      expect(StridedMemoryView.from({ cudaArrayInterface: { ...base, mask: null } }).shape).toEqual([4]);
      buffer.close();
    } finally {
      useDriver(createReferenceDriver());
      device = new DeviceMemoryResource(0);
    }
  });

  it('view() of an import stays within the bytes the interface described: no driver call for more', () => {
    const { driver, log } = countingDriver(createReferenceDriver());
    useDriver(driver);
    try {
      const buffer = new DeviceMemoryResource(0).allocate(16 * 1024);
      const imported = StridedMemoryView.from({
        cudaArrayInterface: { shape: [4096], typestr: '|u1', data: [buffer.handle, false], version: 3 },
      });
      const host = StridedMemoryView.fromHost(new Uint8Array(16 * 1024));
      log.reset();
      expect(() => imported.view(StridedLayout.dense([16 * 1024], 1))).toThrow(
        /needs 16384 bytes, the memory has 4096/,
      );
      expect(() => imported.view(StridedLayout.dense([1024], 4))).not.toThrow();
      expect(() => imported.view(StridedLayout.dense([1025], 4))).toThrow(RangeError);
      expect(log.calls).toEqual([]);
      // The 4 KiB the interface gave still copies.
      imported.copyTo(StridedMemoryView.fromHost(new Uint8Array(4096)));
      expect(host.shape).toEqual([16 * 1024]);
      buffer.close();
    } finally {
      useDriver(createReferenceDriver());
      device = new DeviceMemoryResource(0);
    }
  });

  it('reads each field of the interface once: a getter cannot pass a check and then answer otherwise', () => {
    const buffer = device.allocate(16);
    const reads = new Map<string, number>();
    const fields: Record<string, unknown> = {
      shape: [4],
      typestr: '<i4',
      data: [buffer.handle, false],
      strides: null,
      version: 3,
      stream: null,
    };
    const counted = new Proxy(fields, {
      get(target, key, receiver) {
        reads.set(String(key), (reads.get(String(key)) ?? 0) + 1);
        // A second read of shape would claim more than the allocation holds.
        if (key === 'shape' && reads.get('shape')! > 1) return [1 << 20];
        return Reflect.get(target, key, receiver);
      },
    });
    const view = StridedMemoryView.from({ cudaArrayInterface: counted });
    expect(view.shape).toEqual([4]);
    for (const [key, count] of reads) expect(count, key).toBe(1);
    buffer.close();
  });
});
