// copyBatch with buffers of two devices, and StridedMemoryView copies between devices, with
// and without pool access (then through cuMemcpyPeerAsync). Reference driver with 2 devices
// here; the real adapters where there are 2 GPUs ("not applicable: needs 2 GPUs" elsewhere).
import { canAccessPeer, DeviceMemoryResource, defaultStream, Stream, useDriver } from '@cumem/memory';
import { download, expectBytes, skipWithoutPeerAccess, withCountingDriver } from '@cumem/test-support';
import { describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, patternBytes } from '../test/support.js';
import { copyBatch } from './batch/copy-batch.js';
import { StridedLayout } from './strided/strided-layout.js';
import { StridedMemoryView } from './strided/strided-memory-view.js';

describeEachDriverWithDevices(adapters, 2, 'Several GPUs in @cumem/utils', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
  });

  for (const access of ['without', 'with'] as const) {
    describe(`${access} pool access`, () => {
      let mr0: DeviceMemoryResource;
      let mr1: DeviceMemoryResource;
      let usable = true;
      beforeAll(() => {
        mr0 = new DeviceMemoryResource(0, {});
        mr1 = new DeviceMemoryResource(1, {});
        if (access === 'with') {
          usable = canAccessPeer(0, 1) && canAccessPeer(1, 0);
          if (usable) {
            mr0.peerAccessibleBy = [1];
            mr1.peerAccessibleBy = [0];
          }
        }
      });

      for (const strategy of ['auto', 'batch', 'loop'] as const) {
        it(`copyBatch mixes devices in both directions, on a stream of either (strategy ${strategy})`, (context) => {
          skipWithoutPeerAccess(usable, entry.name, context);
          for (const on of [0, 1]) {
            using stream = Stream.create(on);
            const count = 24;
            const data = Array.from({ length: count }, (_, i) => patternBytes(4096 + i * 61, i + on * 50));
            // Sources alternate devices, destinations on the other device of each source.
            const srcs = data.map((bytes, i) => {
              const buffer = (i % 2 === 0 ? mr0 : mr1).allocate(bytes.length);
              buffer.copyFrom(bytes);
              return buffer;
            });
            const dsts = data.map((bytes, i) => (i % 2 === 0 ? mr1 : mr0).allocate(bytes.length));
            // Allocations are ordered on each device's default stream: done before the batch.
            defaultStream(0).sync();
            defaultStream(1).sync();
            copyBatch(stream, dsts, srcs, undefined, { strategy });
            stream.sync();
            dsts.forEach((dst, i) => {
              expectBytes(download(dst), data[i]!);
            });
            // Partial sizes: only the first 100 bytes move.
            for (const dst of dsts) dst.fill(0);
            copyBatch(stream, dsts, srcs, 100, { strategy });
            stream.sync();
            dsts.forEach((dst, i) => {
              const expected = new Uint8Array(dst.size);
              expected.set(data[i]!.subarray(0, 100));
              expectBytes(download(dst), expected);
            });
            for (const buffer of [...srcs, ...dsts]) buffer.close();
          }
        });
      }

      it('StridedMemoryView copyFrom / copyTo between devices: dense, 2D and 3D layouts', (context) => {
        skipWithoutPeerAccess(usable, entry.name, context);
        const itemsize = 4;
        const rows = 64;
        const cols = 48;
        const bytes = rows * cols * itemsize;
        const data = patternBytes(bytes, 91);
        using a = mr0.allocate(bytes);
        using b = mr1.allocate(bytes);
        a.copyFrom(data);
        const dense = new StridedLayout([rows, cols], null, itemsize);
        const viewA = StridedMemoryView.fromBuffer(a, dense);
        const viewB = StridedMemoryView.fromBuffer(b, dense);
        b.fill(0);
        viewB.copyFrom(viewA);
        expectBytes(download(b), data);
        // A transpose (2D with pitches) from device 1 back to device 0.
        a.fill(0);
        const transposed = new StridedLayout([cols, rows], [1, cols], itemsize);
        const viewAT = StridedMemoryView.fromBuffer(a, new StridedLayout([cols, rows], null, itemsize));
        StridedMemoryView.fromBuffer(b, transposed).copyTo(viewAT);
        const back = download(a);
        const source = new Uint32Array(data.buffer);
        const result = new Uint32Array(back.buffer);
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < cols; c++) expect(result[c * rows + r]).toBe(source[r * cols + c]);
        }
        // A 3D slab: every other row of every other plane, on a stream of device 1.
        b.fill(0);
        const slab = new StridedLayout([4, 8, cols], [16 * cols, 2 * cols, 1], itemsize);
        using stream = Stream.create(1);
        StridedMemoryView.fromBuffer(b, slab).copyFrom(StridedMemoryView.fromBuffer(a, slab), { stream });
        stream.sync();
        const got = new Uint32Array(download(b).buffer);
        const want = new Uint32Array(back.buffer);
        for (let p = 0; p < 4; p++) {
          for (let r = 0; r < 8; r++) {
            for (let c = 0; c < cols; c++) {
              const index = p * 16 * cols + r * 2 * cols + c;
              expect(got[index]).toBe(want[index]);
            }
          }
        }
        expect(got[cols]).toBe(0); // row 1 is not part of the slab
      });
    });
  }
});

/** How many times each driver member was called. */
function tally(calls: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of calls) counts[call] = (counts[call] ?? 0) + 1;
  return counts;
}

describeEachDriverWithDevices(adapters, 2, 'copyBatch across devices: driver calls per batch', (entry) => {
  it("asks a remote pool's access on every call, which pool an allocation is from only once", (context) =>
    withCountingDriver(useDriver, entry.driver, (log, driver) => {
      const mr0 = new DeviceMemoryResource(0, {});
      const mr1 = new DeviceMemoryResource(1, {});
      try {
        skipWithoutPeerAccess(canAccessPeer(0, 1), entry.name, context);
        mr1.peerAccessibleBy = [0];
        using stream = Stream.create(0);
        const ranges = 32;
        const data = patternBytes(ranges * 2048, 7);
        using src = mr0.allocate(data.length);
        using dst = mr1.allocate(data.length);
        src.copyFrom(data);
        dst.fill(0);
        defaultStream(1).sync();
        // Every other 1 KiB: no two ranges touch, so none are merged.
        const srcs = Array.from({ length: ranges }, (_, i) => src.slice(i * 2048, 1024));
        const dsts = Array.from({ length: ranges }, (_, i) => dst.slice(i * 2048, 1024));
        const expected = new Uint8Array(data.length);
        for (let i = 0; i < ranges; i++) expected.set(data.subarray(i * 2048, i * 2048 + 1024), i * 2048);
        for (const strategy of ['batch', 'loop'] as const) {
          if (strategy === 'batch' && !driver.capabilities.batchMemcpy) continue;
          log.reset();
          copyBatch(stream, dsts, srcs, undefined, { strategy });
          copyBatch(stream, dsts, srcs, undefined, { strategy });
          stream.sync();
          const counts = tally(log.calls);
          // Device 0's own memory needs no question; device 1's pool is asked once per batch.
          expect(counts.memPoolGetAccess).toBe(2);
          expect(counts.pointerGetHandleAttribute ?? 0).toBe(strategy === 'batch' ? 1 : 0);
          expect(counts.memcpyPeerAsync ?? 0).toBe(0);
          if (strategy === 'batch') expect(counts.memcpyBatchAsync).toBe(2);
          else expect(counts.memcpyAsync).toBe(2 * ranges);
          expectBytes(download(dst), expected);
        }
        // Interleaved memories (two resources of device 1, A B A B ...): one access query per resource.
        const other = new DeviceMemoryResource(1, {});
        try {
          other.peerAccessibleBy = [0];
          using second = other.allocate(data.length);
          const mixed = dsts.map((slice, i) => (i % 2 === 0 ? slice : second.slice(i * 2048, 1024)));
          log.reset();
          copyBatch(stream, mixed, srcs);
          stream.sync();
          expect(tally(log.calls).memPoolGetAccess).toBe(2);
          expect(tally(log.calls).memcpyPeerAsync ?? 0).toBe(0);
          const copied = download(second);
          for (let i = 1; i < ranges; i += 2) {
            expectBytes(copied.subarray(i * 2048, i * 2048 + 1024), data.subarray(i * 2048, i * 2048 + 1024));
          }
        } finally {
          other.close();
        }
        // Access revoked between two calls: the next batch sees it and takes the peer path.
        mr1.peerAccessibleBy = [];
        dst.fill(0);
        defaultStream(1).sync();
        log.reset();
        copyBatch(stream, dsts, srcs);
        stream.sync();
        const counts = tally(log.calls);
        expect(counts.memcpyPeerAsync).toBe(ranges);
        expect((counts.memcpyAsync ?? 0) + (counts.memcpyBatchAsync ?? 0)).toBe(0);
        expectBytes(download(dst), expected);
      } finally {
        mr0.close();
        mr1.close();
      }
    }));
});
