// Issue 21, item 2: every safe entry point of @cumem/utils that takes a Buffer, StridedLayout or
// StridedMemoryView refuses imitations (shaped objects, objects inheriting from a real one with
// lying getters, Proxies) with a TypeError before any driver call.
import { Device, DeviceMemoryResource, ManagedMemoryResource, Stream, useDriver } from '@cumem/memory';
import { imitationsOf, refuseImitations, withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, strictTypeError } from '../test/support.js';
import { copyBatch } from './batch/copy-batch.js';
import { discardBatch, discardPrefetchBatch, prefetchBatch } from './managed/managed-batch.js';
import { StridedLayout } from './strided/strided-layout.js';
import { StridedMemoryView } from './strided/strided-memory-view.js';

describeEachDriver(adapters, 'imitations of cumem objects', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('copyBatch refuses imitations of a Buffer in dsts and srcs, at any index, before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new DeviceMemoryResource(0);
      using stream = Stream.create(0);
      using victim = mr.allocate(65536);
      using dst = mr.allocate(64);
      using src = mr.allocate(64);
      const other = { handle: victim.handle, size: 64 };
      refuseImitations(
        log,
        src,
        (fake, what) => {
          expect(() => copyBatch(stream, [dst], [fake]), what).toThrow(strictTypeError);
          expect(() => copyBatch(stream, [dst, dst], [src, fake]), what).toThrow(/srcs\[1\]/);
          expect(() => copyBatch(stream, [fake], [src]), what).toThrow(strictTypeError);
          expect(() => copyBatch(stream, [fake], [src], 64, { strategy: 'loop' }), what).toThrow(
            strictTypeError,
          );
        },
        other,
      );
    }));

  it('the managed batches refuse imitations of a ManagedBuffer before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      using stream = Stream.create(0);
      using managed = new ManagedMemoryResource().allocate(4096);
      refuseImitations(log, managed, (fake, what) => {
        expect(() => prefetchBatch(stream, [fake], new Device(0)), what).toThrow(strictTypeError);
        expect(() => discardBatch(stream, [managed, fake]), what).toThrow(strictTypeError);
        expect(() => discardPrefetchBatch(stream, [fake], new Device(0)), what).toThrow(strictTypeError);
      });
    }));

  it('StridedMemoryView refuses imitations of a Buffer, a layout and a view before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new DeviceMemoryResource(0);
      using buffer = mr.allocate(256);
      const layout = StridedLayout.dense([16], 4);
      const view = StridedMemoryView.fromBuffer(buffer, layout);
      const host = StridedMemoryView.fromHost(new Float32Array(16));
      refuseImitations(log, buffer, (fake, what) => {
        expect(() => StridedMemoryView.fromBuffer(fake, layout), what).toThrow(strictTypeError);
      });
      for (const { what, value } of imitationsOf(layout)) {
        expect(StridedLayout.isInstance(value), what).toBe(false);
        expect(() => StridedMemoryView.fromBuffer(buffer, value as StridedLayout), what).toThrow(
          strictTypeError,
        );
      }
      refuseImitations(log, view, (fake, what) => {
        expect(StridedMemoryView.isInstance(fake), what).toBe(false);
        expect(() => host.copyFrom(fake), what).toThrow(strictTypeError);
        expect(() => host.copyTo(fake), what).toThrow(strictTypeError);
      });
      expect(StridedMemoryView.isInstance(view)).toBe(true);
      expect(StridedLayout.isInstance(layout)).toBe(true);
    }));
});
