import { CudaStateError, Device, Host, NotSupportedError } from '@cumem/core-types';
import {
  DeviceMemoryResource,
  type ManagedBuffer,
  ManagedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { createReferenceDriver, type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, lastPrefetch, strictTypeError } from '../../test/support.js';
import { advise } from './managed-advise.js';
import { discard, discardPrefetch, prefetch } from './managed-operations.js';

/** How many calls of `name` the log holds. */
function count(log: DriverCallLog, name: string): number {
  return log.calls.filter((call) => call === name).length;
}

describeEachDriver(
  adapters,
  'managed free functions (advise, prefetch, discard, discardPrefetch)',
  (entry) => {
    const device = new Device(0);
    const host = new Host();

    beforeAll(() => {
      useDriver(entry.driver);
    });

    /** Runs `body` on a counting driver with four fresh managed buffers of 64 KiB and a stream. */
    function withCounted(body: (log: DriverCallLog, buffers: ManagedBuffer[], stream: Stream) => void): void {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const managed = new ManagedMemoryResource();
        const stream = Stream.create(0);
        const buffers = Array.from({ length: 4 }, () => managed.allocate(64 * 1024));
        try {
          log.reset();
          body(log, buffers, stream);
        } finally {
          stream.sync();
          for (const buffer of buffers) buffer.close();
          stream.close();
        }
      });
    }

    it('prefetch: one buffer is one cuMemPrefetchAsync, several take the batch call', () => {
      withCounted((log, buffers, stream) => {
        prefetch(buffers[0]!, host, { stream });
        expect(count(log, 'memPrefetchAsync')).toBe(1);
        expect(count(log, 'memPrefetchBatchAsync')).toBe(0);
        prefetch([buffers[1]!], device, { stream });
        expect(count(log, 'memPrefetchAsync')).toBe(2);
        log.reset();
        const batch = entry.driver.capabilities.batchPrefetchDiscard;
        prefetch(buffers, host, { stream, strategy: batch ? 'batch' : 'loop' });
        expect(count(log, batch ? 'memPrefetchBatchAsync' : 'memPrefetchAsync')).toBe(
          batch ? 1 : buffers.length,
        );
        stream.sync();
        for (const buffer of buffers) expect(lastPrefetch(entry.driver, buffer)).toBe('host');
      });
    });

    it('prefetch pairs locations by index or broadcasts one; without a stream it waits', () => {
      withCounted((log, buffers, stream) => {
        const alternating = buffers.map((_, i) => (i % 2 === 0 ? device : host));
        prefetch(buffers, alternating, { stream });
        stream.sync();
        buffers.forEach((buffer, i) => {
          expect(lastPrefetch(entry.driver, buffer)).toBe(i % 2 === 0 ? 'device:0' : 'host');
        });
        log.reset();
        prefetch(buffers[0]!, host);
        expect(log.calls.filter((call) => call.startsWith('mem') || call === 'streamSynchronize')).toEqual([
          'memPrefetchAsync',
          'streamSynchronize',
        ]);
        expect(lastPrefetch(entry.driver, buffers[0]!)).toBe('host');
        log.reset();
        prefetch(buffers, device);
        expect(count(log, 'streamSynchronize')).toBe(1);
        for (const buffer of buffers) expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
      });
    });

    it('discard and discardPrefetch: one buffer is one range of the batch entry point', () => {
      withCounted((log, buffers, stream) => {
        if (!entry.driver.capabilities.batchPrefetchDiscard) {
          expect(() => discard(buffers[0]!, { stream })).toThrow(NotSupportedError);
          expect(() => discard(buffers, { stream })).toThrow(/CUDA 13\.0/);
          expect(log.calls).toEqual([]);
          discardPrefetch(buffers[0]!, host, { stream });
          expect(count(log, 'memPrefetchAsync')).toBe(1);
          return;
        }
        discard(buffers[0]!, { stream });
        expect(count(log, 'memDiscardBatchAsync')).toBe(1);
        discard(buffers, { stream, strategy: 'batch' });
        expect(count(log, 'memDiscardBatchAsync')).toBe(2);
        discardPrefetch(buffers[1]!, host, { stream });
        expect(count(log, 'memDiscardAndPrefetchBatchAsync')).toBe(1);
        discardPrefetch(buffers, device, { stream, strategy: 'batch' });
        expect(count(log, 'memDiscardAndPrefetchBatchAsync')).toBe(2);
        stream.sync();
        for (const buffer of buffers) expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
        // Discarded pages read back as anything; written again, they hold what was written.
        buffers[0]!.fill(5);
        const bytes = new Uint8Array(64 * 1024);
        buffers[0]!.copyTo(bytes);
        expect(bytes.every((byte) => byte === 5)).toBe(true);
      });
    });

    it('advise: one cuMemAdvise per buffer, one for adjacent slices of one allocation', () => {
      withCounted((log, buffers) => {
        advise(buffers, 'setReadMostly');
        expect(count(log, 'memAdvise')).toBe(buffers.length);
        for (const buffer of buffers) expect(buffer.readMostly).toBe(true);
        log.reset();
        advise(buffers[0]!, 'unsetReadMostly');
        expect(count(log, 'memAdvise')).toBe(1);
        expect(buffers[0]!.readMostly).toBe(false);
        advise(buffers, 'setPreferredLocation', device);
        for (const buffer of buffers) expect(buffer.preferredLocation).toBe(device);
        advise(buffers, 'unsetPreferredLocation');
        for (const buffer of buffers) expect(buffer.preferredLocation).toBe(null);
        advise(buffers, 'setAccessedBy', device);
        for (const buffer of buffers) expect(buffer.accessedBy.has(device)).toBe(true);
        advise(buffers, 'unsetAccessedBy', device);
        for (const buffer of buffers) expect(buffer.accessedBy.has(device)).toBe(false);
        const big = buffers[0]!;
        const slices = Array.from({ length: 4 }, (_, i) => big.slice(i * 16 * 1024, 16 * 1024));
        log.reset();
        advise(slices, 'setReadMostly');
        expect(count(log, 'memAdvise')).toBe(1);
        expect(big.readMostly).toBe(true);
      });
    });

    it('checks every argument before any driver call', () => {
      withCounted((log, buffers, stream) => {
        const plain = new DeviceMemoryResource(0).allocate(1024);
        const closed = buffers[3]!.slice(0, 1024);
        closed.close();
        const closedStream = Stream.create(0);
        closedStream.close();
        log.reset();
        expect(() => prefetch(42 as never, device)).toThrow(strictTypeError);
        expect(() => prefetch(plain as never, device)).toThrow(strictTypeError);
        expect(() => prefetch([buffers[0]!, plain] as never, device)).toThrow(strictTypeError);
        expect(() => prefetch([buffers[0]!, 'x'] as never, device)).toThrow(strictTypeError);
        expect(() => prefetch(buffers, [device, host])).toThrow(RangeError);
        expect(() => discardPrefetch(buffers, [host])).toThrow(RangeError);
        expect(() => prefetch(buffers[0]!, 'gpu' as never)).toThrow(strictTypeError);
        expect(() => prefetch(buffers[0]!, device, { stream: 5 } as never)).toThrow(strictTypeError);
        expect(() => prefetch(buffers[0]!, device, { stream: closedStream })).toThrow(CudaStateError);
        expect(() => prefetch(closed, device, { stream })).toThrow(CudaStateError);
        expect(() => prefetch([buffers[0]!, closed], device)).toThrow(CudaStateError);
        expect(() => discard(plain as never, { stream })).toThrow(strictTypeError);
        expect(() => discard(buffers, { strategy: 'fast' } as never)).toThrow(strictTypeError);
        expect(() => advise(buffers, 'setReadMostlyy' as never)).toThrow(strictTypeError);
        expect(() => advise(buffers, 42 as never)).toThrow(strictTypeError);
        expect(() => advise(buffers, 'setPreferredLocation')).toThrow(strictTypeError);
        expect(() => advise(buffers, 'setAccessedBy', new Host({ numaId: 0 }))).toThrow(strictTypeError);
        expect(() => advise(buffers, 'setAccessedBy', 0 as never)).toThrow(strictTypeError);
        expect(() => advise(plain as never, 'setReadMostly')).toThrow(strictTypeError);
        expect(() => advise([buffers[0]!, closed], 'setReadMostly')).toThrow(CudaStateError);
        expect(() => advise(null as never, 'setReadMostly')).toThrow(strictTypeError);
        // A buffer-shaped object could name any range: refused, alone or in an array.
        const lying = { handle: buffers[0]!.handle, size: 1 << 30, isManaged: true, isClosed: false };
        expect(() => discard(lying as never, { stream })).toThrow(strictTypeError);
        expect(() => prefetch([buffers[0]!, lying] as never, host, { stream })).toThrow(strictTypeError);
        expect(() => advise([lying] as never, 'setReadMostly')).toThrow(strictTypeError);
        advise([], 'setReadMostly');
        prefetch([], device);
        discardPrefetch([], host, { stream });
        expect(log.calls).toEqual([]);
        plain.close();
      });
    });
  },
);

describe('managed free functions on a driver without batch or NUMA entry points (CUDA 12 forms)', () => {
  const legacy = createReferenceDriver({ entryPoints: 'legacy' });

  it('refuses NUMA hosts and discard before any driver call; discardPrefetch prefetches', () => {
    withCountingDriver(useDriver, legacy, (log) => {
      const managed = new ManagedMemoryResource();
      const buffers = [managed.allocate(4096), managed.allocate(4096)];
      const numa = new Host({ numaId: 0 });
      log.reset();
      expect(() => prefetch(buffers[0]!, numa)).toThrow(NotSupportedError);
      expect(() => prefetch(buffers, [new Host(), numa])).toThrow(NotSupportedError);
      expect(() => discardPrefetch(buffers, Host.numaCurrent())).toThrow(NotSupportedError);
      expect(() => advise(buffers, 'setPreferredLocation', numa)).toThrow(NotSupportedError);
      expect(() => discard(buffers[0]!)).toThrow(/CUDA 13\.0/);
      expect(() => discard(buffers)).toThrow(NotSupportedError);
      expect(() => prefetch(buffers, new Host(), { requireBatch: true })).toThrow(NotSupportedError);
      expect(log.calls).toEqual([]);
      discardPrefetch(buffers, new Host());
      expect(count(log, 'memPrefetchAsync')).toBe(2);
      expect(buffers.map((buffer) => lastPrefetch(legacy, buffer))).toEqual(['host', 'host']);
      for (const buffer of buffers) buffer.close();
    });
  });
});
