import { CudaStateError, NotSupportedError } from '@cumem/core-types';
import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';
import { download, withCountingDriver } from '@cumem/test-support';
import { countingDriver, createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, patternBytes, strictTypeError } from '../../test/support.js';
import { copyBatch } from './copy-batch.js';

describeEachDriver(adapters, 'copyBatch', (entry) => {
  let device: DeviceMemoryResource;
  let stream: Stream;

  beforeAll(() => {
    useDriver(entry.driver);
    device = new DeviceMemoryResource(0);
    stream = Stream.create(0);
  });

  for (const strategy of ['auto', 'batch', 'loop'] as const) {
    it(`copies every pair (strategy ${strategy})`, () => {
      const data = Array.from({ length: 9 }, (_, i) => patternBytes(100 + i * 37, i + 1));
      const srcs = data.map((bytes) => {
        const buffer = device.allocate(bytes.length);
        buffer.copyFrom(bytes);
        return buffer;
      });
      const dsts = data.map((bytes) => device.allocate(bytes.length));
      copyBatch(stream, dsts, srcs, undefined, { strategy });
      stream.sync();
      dsts.forEach((dst, i) => {
        expect(download(dst)).toEqual(data[i]);
      });
      const partial = dsts.map((dst) => {
        dst.fill(0);
        return 10;
      });
      stream.sync();
      copyBatch(stream, dsts, srcs, partial, { strategy });
      stream.sync();
      dsts.forEach((dst, i) => {
        const out = download(dst);
        expect(out.subarray(0, 10)).toEqual(data[i]!.subarray(0, 10));
        expect(out.subarray(10).every((byte) => byte === 0)).toBe(true);
      });
      for (const buffer of [...srcs, ...dsts]) buffer.close();
    });
  }

  it("refuses buffers of another driver than the stream's, before any driver call", () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const foreign = new DeviceMemoryResource(0).allocate(64);
      const own = device.allocate(64);
      log.reset();
      expect(() => copyBatch(stream, [own], [foreign])).toThrow(CudaStateError);
      expect(log.calls).toEqual([]);
      foreign.close();
      own.close();
    });
  });

  it('coalesces copies that continue on both sides', () => {
    const { driver, log } = countingDriver(entry.driver);
    useDriver(driver);
    // Objects of the counting driver: copyBatch calls the driver of the objects it is given.
    const counted = Stream.create(0);
    const countedDevice = new DeviceMemoryResource(0);
    try {
      const src = countedDevice.allocate(4096);
      src.copyFrom(patternBytes(4096));
      const dst = countedDevice.allocate(4096);
      const srcs = Array.from({ length: 4 }, (_, i) => src.slice(i * 1024, 1024));
      const dsts = Array.from({ length: 4 }, (_, i) => dst.slice(i * 1024, 1024));
      log.reset();
      copyBatch(counted, dsts, srcs, undefined, { strategy: 'loop' });
      expect(log.calls.filter((call) => call === 'memcpyAsync')).toHaveLength(1);
      counted.sync();
      expect(download(dst)).toEqual(patternBytes(4096));
      src.close();
      dst.close();
    } finally {
      counted.close();
      useDriver(entry.driver);
    }
  });

  it('auto follows the fixed rule: one batch call for several copies, the single call for one, never an event', () => {
    withCountingDriver(useDriver, entry.driver, (log, driver) => {
      const counted = Stream.create(0);
      const resource = new DeviceMemoryResource(0);
      const src = resource.allocate(8 * 4096);
      const dst = resource.allocate(8 * 4096);
      try {
        src.copyFrom(patternBytes(8 * 4096, 3));
        // Every other 4 KiB: nothing merges.
        const srcs = Array.from({ length: 4 }, (_, i) => src.slice(i * 8192, 4096));
        const dsts = Array.from({ length: 4 }, (_, i) => dst.slice(i * 8192, 4096));
        const count = (name: string) => log.calls.filter((call) => call === name).length;
        for (let round = 0; round < 3; round++) {
          log.reset();
          copyBatch(counted, dsts, srcs);
          if (driver.capabilities.batchMemcpy) {
            expect([count('memcpyBatchAsync'), count('memcpyAsync')]).toEqual([1, 0]);
          } else expect([count('memcpyBatchAsync'), count('memcpyAsync')]).toEqual([0, 4]);
          expect(log.calls.filter((call) => call.startsWith('event'))).toEqual([]);
        }
        log.reset();
        copyBatch(counted, [dsts[1]!], [srcs[1]!]);
        expect([count('memcpyBatchAsync'), count('memcpyAsync')]).toEqual([0, 1]);
        counted.sync();
        const out = download(dst);
        const expected = patternBytes(8 * 4096, 3);
        for (let i = 0; i < 4; i++) {
          expect(out.subarray(i * 8192, i * 8192 + 4096)).toEqual(
            expected.subarray(i * 8192, i * 8192 + 4096),
          );
        }
      } finally {
        src.close();
        dst.close();
        counted.close();
      }
    });
  });

  it('validates every argument before any driver call', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const a = device.allocate(64);
      const b = device.allocate(32);
      log.reset();
      expect(() => copyBatch(stream, a as never, [b])).toThrow(strictTypeError);
      expect(() => copyBatch(stream, [a], [b, b])).toThrow(RangeError);
      expect(() => copyBatch(stream, [a], [b])).toThrow(RangeError);
      expect(() => copyBatch(stream, [a], [b], [40])).toThrow(RangeError);
      expect(() => copyBatch(stream, [a], [b], 33)).toThrow(RangeError);
      expect(() => copyBatch(stream, [a], [b], ['8'] as never)).toThrow(strictTypeError);
      expect(() => copyBatch(stream, [a], [b], [-1])).toThrow(RangeError);
      expect(() => copyBatch(stream, [a], [b], [8, 8])).toThrow(RangeError);
      expect(() => copyBatch(stream, [a], [{}] as never)).toThrow(strictTypeError);
      copyBatch(stream, [], []);
      b.close();
      expect(() => copyBatch(stream, [a], [b], 8)).toThrow(CudaStateError);
      expect(log.calls).toEqual([]);
      a.close();
    });
  });
});

describe('copyBatch without cuMemcpyBatchAsync', () => {
  it('falls back to a loop, and requireBatch names CUDA 12.8', () => {
    const legacy = createReferenceDriver({ entryPoints: 'legacy' });
    useDriver(legacy);
    const device = new DeviceMemoryResource(0);
    const stream = Stream.create(0);
    const src = device.allocate(16);
    src.copyFrom(patternBytes(16));
    const dst = device.allocate(16);
    copyBatch(stream, [dst], [src]);
    stream.sync();
    expect(download(dst)).toEqual(patternBytes(16));
    expect(() => copyBatch(stream, [dst], [src], undefined, { requireBatch: true })).toThrow(
      NotSupportedError,
    );
    expect(() => copyBatch(stream, [dst], [src], undefined, { requireBatch: true })).toThrow(/CUDA 12\.8/);
  });
});
