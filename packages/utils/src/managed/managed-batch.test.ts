import { CudaStateError, Device, Host, NotSupportedError } from '@cumem/core-types';
import { type Buffer, DeviceMemoryResource, ManagedMemoryResource, Stream, useDriver } from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { createReferenceDriver, type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, lastPrefetch, strictTypeError } from '../../test/support.js';
import { discardBatch, discardPrefetchBatch, prefetchBatch } from './managed-batch.js';

const strategies = ['auto', 'batch', 'loop'] as const;

describeEachDriver(adapters, 'managed batch operations', (entry) => {
  let managed: ManagedMemoryResource;
  let stream: Stream;
  let buffers: Buffer[];
  const device = new Device(0);
  const host = new Host();

  beforeAll(() => {
    useDriver(entry.driver);
    managed = new ManagedMemoryResource();
    stream = Stream.create(0);
    buffers = Array.from({ length: 16 }, () => managed.allocate(64 * 1024));
  });

  afterAll(() => {
    for (const buffer of buffers) buffer.close();
    stream.close();
  });

  for (const strategy of strategies) {
    it(`prefetchBatch moves every range where asked (strategy ${strategy})`, () => {
      prefetchBatch(stream, buffers, host, { strategy });
      stream.sync();
      for (const buffer of buffers) expect(lastPrefetch(entry.driver, buffer)).toBe('host');
      const alternating = buffers.map((_, i) => (i % 2 === 0 ? device : host));
      prefetchBatch(stream, buffers, alternating, { strategy });
      stream.sync();
      buffers.forEach((buffer, i) => {
        expect(lastPrefetch(entry.driver, buffer)).toBe(i % 2 === 0 ? 'device:0' : 'host');
      });
    });

    it(`discardPrefetchBatch moves every range where asked (strategy ${strategy})`, () => {
      discardPrefetchBatch(stream, buffers, host, { strategy });
      stream.sync();
      const alternating = buffers.map((_, i) => (i % 3 === 0 ? host : device));
      discardPrefetchBatch(stream, buffers, alternating, { strategy });
      stream.sync();
      buffers.forEach((buffer, i) => {
        expect(lastPrefetch(entry.driver, buffer)).toBe(i % 3 === 0 ? 'host' : 'device:0');
      });
    });

    it(`discardBatch runs on every range (strategy ${strategy})`, () => {
      for (const buffer of buffers) buffer.fill(7);
      stream.sync();
      discardBatch(stream, buffers, { strategy });
      stream.sync();
      if (entry.isReference) {
        // The reference driver makes discarded bytes read as 0xdd, so a skipped range shows.
        for (const buffer of buffers) expect(buffer.hostView().every((byte) => byte === 0xdd)).toBe(true);
      }
    });
  }

  /**
   * Runs `body` with a counting driver in use over objects of it (batch operations call the
   * driver of the objects given): a stream and managed buffers like `buffers`, closed after.
   */
  function withCountedBuffers(
    body: (log: DriverCallLog, counted: Stream, own: Buffer[], countedManaged: ManagedMemoryResource) => void,
  ): void {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const counted = Stream.create(0);
      const countedManaged = new ManagedMemoryResource();
      const own = buffers.map(() => countedManaged.allocate(64 * 1024));
      try {
        body(log, counted, own, countedManaged);
      } finally {
        for (const buffer of own) buffer.close();
        counted.close();
      }
    });
  }

  it('auto follows the fixed rule per direction: device-bound runs as one batch call, host-bound ones a call each', () => {
    withCountedBuffers((log, counted, own) => {
      const half = own.length / 2;
      // The first half to the device, the second to the host: two runs, in list order.
      const split = own.map((_, i) => (i < half ? device : host));
      const count = (name: string) => log.calls.filter((call) => call === name).length;
      for (let round = 0; round < 3; round++) {
        log.reset();
        prefetchBatch(counted, own, split, { coalesce: false });
        counted.sync();
        if (entry.driver.capabilities.batchPrefetchDiscard) {
          expect([count('memPrefetchBatchAsync'), count('memPrefetchAsync')]).toEqual([1, half]);
        } else expect([count('memPrefetchBatchAsync'), count('memPrefetchAsync')]).toEqual([0, own.length]);
        expect(log.calls.filter((call) => call.startsWith('event'))).toEqual([]);
      }
      own.forEach((buffer, i) => {
        expect(lastPrefetch(entry.driver, buffer)).toBe(i < half ? 'device:0' : 'host');
      });
    });
  });

  it('auto keeps list order: a buffer sent to the device, then to the host, ends on the host', () => {
    withCountedBuffers((_log, counted, own) => {
      const [first, second] = own as [Buffer, Buffer];
      prefetchBatch(counted, [first, second, first], [device, device, host], { coalesce: false });
      prefetchBatch(counted, [second, second], [host, device], { coalesce: false });
      counted.sync();
      expect(lastPrefetch(entry.driver, first)).toBe('host');
      expect(lastPrefetch(entry.driver, second)).toBe('device:0');
    });
  });

  it('coalesces adjacent slices of one allocation into one range', () => {
    withCountedBuffers((log, counted, _own, countedManaged) => {
      const big = countedManaged.allocate(8 * 4096);
      const slices = Array.from({ length: 8 }, (_, i) => big.slice(i * 4096, 4096));
      log.reset();
      prefetchBatch(counted, slices, device, { strategy: 'loop' });
      expect(log.calls.filter((call) => call === 'memPrefetchAsync')).toHaveLength(1);
      log.reset();
      prefetchBatch(counted, slices, device, { strategy: 'loop', coalesce: false });
      expect(log.calls.filter((call) => call === 'memPrefetchAsync')).toHaveLength(8);
      log.reset();
      prefetchBatch(counted, slices, host, { strategy: 'batch', chunkSize: 3, coalesce: false });
      expect(log.calls.filter((call) => call === 'memPrefetchBatchAsync')).toHaveLength(3);
      counted.sync();
      for (const slice of slices) expect(lastPrefetch(entry.driver, slice)).toBe('host');
      big.close();
    });
  });

  it('validates every argument before any driver call', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const plain = new DeviceMemoryResource(0).allocate(1024);
      log.reset();
      expect(() => prefetchBatch(stream, buffers[0] as never, device)).toThrow(strictTypeError);
      expect(() => prefetchBatch(stream, [...buffers, plain], device)).toThrow(strictTypeError);
      expect(() => prefetchBatch(stream, [buffers[0]!, 'x'] as never, device)).toThrow(strictTypeError);
      expect(() => prefetchBatch(stream, buffers, [device, host])).toThrow(RangeError);
      expect(() => prefetchBatch(stream, buffers, buffers.map(() => 0) as never)).toThrow(strictTypeError);
      expect(() => prefetchBatch(stream, buffers, 'gpu' as never)).toThrow(strictTypeError);
      expect(() => prefetchBatch({} as never, buffers, device)).toThrow(strictTypeError);
      expect(() => prefetchBatch(stream, buffers, device, { strategy: 'fast' } as never)).toThrow(
        strictTypeError,
      );
      expect(() => prefetchBatch(stream, buffers, device, { requireBatch: 1 } as never)).toThrow(
        strictTypeError,
      );
      expect(() => prefetchBatch(stream, buffers, device, { chunkSize: 0 })).toThrow(RangeError);
      expect(() => prefetchBatch(stream, buffers, device, { requireBatch: true, strategy: 'loop' })).toThrow(
        strictTypeError,
      );
      expect(() => discardBatch(stream, [plain])).toThrow(strictTypeError);
      expect(() => discardPrefetchBatch(stream, buffers, [host])).toThrow(RangeError);
      const closed = managed.allocate(64);
      closed.close();
      expect(() => prefetchBatch(stream, [closed], device)).toThrow(CudaStateError);
      const closedStream = Stream.create(0);
      closedStream.close();
      log.reset();
      expect(() => prefetchBatch(closedStream, buffers, device)).toThrow(CudaStateError);
      prefetchBatch(stream, [], device);
      discardBatch(stream, []);
      expect(log.calls).toEqual([]);
      plain.close();
    });
  });
});

describe('managed batch operations without batch entry points (CUDA 12 forms)', () => {
  const legacy = createReferenceDriver({ entryPoints: 'legacy' });
  let managed: ManagedMemoryResource;
  let stream: Stream;

  beforeAll(() => {
    useDriver(legacy);
    managed = new ManagedMemoryResource();
    stream = Stream.create(0);
  });

  it('prefetchBatch and discardPrefetchBatch fall back to per-range prefetches', () => {
    const buffers = Array.from({ length: 4 }, () => managed.allocate(4096));
    prefetchBatch(stream, buffers, [new Device(0), new Host(), new Device(0), new Host()]);
    discardPrefetchBatch(stream, buffers.slice(0, 2), new Host());
    stream.sync();
    expect(buffers.map((buffer) => lastPrefetch(legacy, buffer))).toEqual([
      'host',
      'host',
      'device:0',
      'host',
    ]);
  });

  it('requireBatch and discard say which CUDA version they need, before any driver call', () => {
    withCountingDriver(useDriver, legacy, (log) => {
      const buffers = [managed.allocate(4096)];
      log.reset();
      expect(() => prefetchBatch(stream, buffers, new Host(), { requireBatch: true })).toThrow(
        NotSupportedError,
      );
      expect(() => prefetchBatch(stream, buffers, new Host(), { requireBatch: true })).toThrow(/CUDA 13\.0/);
      expect(() => discardBatch(stream, buffers)).toThrow(/CUDA 13\.0/);
      expect(() => discardPrefetchBatch(stream, buffers, new Host(), { strategy: 'batch' })).toThrow(
        NotSupportedError,
      );
      expect(() => prefetchBatch(stream, buffers, new Host({ numaId: 0 }))).toThrow(NotSupportedError);
      expect(log.calls).toEqual([]);
    });
  });
});
