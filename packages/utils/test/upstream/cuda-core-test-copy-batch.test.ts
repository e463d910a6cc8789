// cuda.core's tests of the data movement of copy_batch, translated case by case.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/memory/test_copy_batch.py at commit
// fe29eb74f7d3c38cdd7b3df26a28c1ac77dbbc06 (fixtures: tests/memory/conftest.py and
// tests/helpers/copy_batch.py: four pairs of 4096 bytes). Each case's title starts with the
// upstream test name (class-scoped tests as `Class.test_name`).
//
// cumem's copyBatch takes the destinations first: `copyBatch(stream, dsts, srcs)` where
// cuda.core has `copy_batch(stream, srcs, dsts)` (utils README, "Batch operations"). Its stream is
// a Stream of @cumem/memory: raw stream tokens (the legacy default stream 1, the per-thread
// default stream 2) are TypeErrors, and `defaultStream(0)` (cumem's non-blocking per-device
// stream) stands in for the per-thread default stream.
//
// cumem has no graph builder: TestCopyBatchStreamSemantics.test_graph_builder_is_rejected checks
// what stands for it, an object shaped like a stream that is not a Stream of @cumem/memory.
//
// Not ported:
// - TestCopyBatchStreamSemantics.test_capturing_stream_is_rejected: cumem has no stream capture.
import {
  type Buffer,
  DeviceMemoryResource,
  defaultStream,
  LegacyPinnedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { download } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyBatch } from '../../src/index.js';
import { adapters, strictTypeError } from '../support.js';

// Upstream's COPY_BATCH_SIZE and COPY_BATCH_COUNT.
const SIZE = 4096;
const COUNT = 4;

describeEachDriver(adapters, 'cuda.core test_copy_batch.py', (entry) => {
  let device: DeviceMemoryResource;
  let pinned: LegacyPinnedMemoryResource;
  let stream: Stream;
  const opened: Buffer[] = [];

  beforeAll(() => {
    useDriver(entry.driver);
    device = new DeviceMemoryResource(0);
    pinned = new LegacyPinnedMemoryResource();
    stream = Stream.create(0);
  });

  afterAll(() => {
    stream.sync();
    for (const buffer of opened) buffer.close();
    stream.close();
  });

  /** A buffer closed after the file's cases. */
  function kept<B extends Buffer>(buffer: B): B {
    opened.push(buffer);
    return buffer;
  }

  const pinnedBuffer = (size = SIZE) => kept(pinned.allocate(size));
  const deviceBuffer = (size = SIZE) => kept(device.allocate(size, { stream }));

  /** Upstream's h2d_bufs: pinned sources, device destinations. */
  const h2dBuffers = () => ({
    srcs: Array.from({ length: COUNT }, () => pinnedBuffer()),
    dsts: Array.from({ length: COUNT }, () => deviceBuffer()),
  });

  /** Upstream's device_bufs: device sources and destinations. */
  const deviceBuffers = () => ({
    srcs: Array.from({ length: COUNT }, () => deviceBuffer()),
    dsts: Array.from({ length: COUNT }, () => deviceBuffer()),
  });

  /** Upstream's set_buffer: every byte of a pinned buffer set from the host. */
  const setBuffer = (buffer: Buffer, value: number) => buffer.hostView().fill(value);

  /** Upstream's compare_buffer_to_constant. */
  const holds = (buffer: Buffer, value: number) => download(buffer).every((byte) => byte === value);

  it('TestCopyBatchCore.test_h2d_batch: pinned -> device, each destination its own source', () => {
    const { srcs, dsts } = h2dBuffers();
    for (const [i, src] of srcs.entries()) setBuffer(src, i + 1);
    copyBatch(stream, dsts, srcs);
    stream.sync();
    for (const [i, dst] of dsts.entries()) expect(holds(dst, i + 1)).toBe(true);
  });

  it('TestCopyBatchCore.test_d2h_batch: device -> pinned', () => {
    const { dsts: deviceSources } = h2dBuffers();
    for (const [i, buffer] of deviceSources.entries()) buffer.fill(i + 10, { stream });
    const hosts = deviceSources.map(() => pinnedBuffer());
    copyBatch(stream, hosts, deviceSources);
    stream.sync();
    hosts.forEach((host, i) => {
      expect(host.hostView()).toEqual(new Uint8Array(SIZE).fill(i + 10));
    });
  });

  it('TestCopyBatchCore.test_d2d_batch: device -> device', () => {
    const { srcs, dsts } = deviceBuffers();
    for (const [i, src] of srcs.entries()) src.fill(i + 20, { stream });
    copyBatch(stream, dsts, srcs);
    stream.sync();
    for (const [i, dst] of dsts.entries()) expect(holds(dst, i + 20)).toBe(true);
  });

  it('TestCopyBatchCore.test_various_sizes: pairs of different sizes', () => {
    const sizes = [1024, 2048, 512, 4096];
    const srcs = sizes.map((size) => pinnedBuffer(size));
    const dsts = sizes.map((size) => deviceBuffer(size));
    for (const [i, src] of srcs.entries()) setBuffer(src, i + 1);
    copyBatch(stream, dsts, srcs);
    stream.sync();
    dsts.forEach((dst, i) => {
      expect(dst.size).toBe(sizes[i]);
      expect(holds(dst, i + 1)).toBe(true);
    });
  });

  it('TestCopyBatchCore.test_single_element_batch: a one-pair batch copies; a bare Buffer is refused', () => {
    const src = pinnedBuffer();
    const dst = deviceBuffer();
    setBuffer(src, 7);
    expect(() => copyBatch(stream, dst as never, src as never)).toThrow(strictTypeError);
    copyBatch(stream, [dst], [src]);
    stream.sync();
    expect(holds(dst, 7)).toBe(true);
  });

  /** Both destination lists read back through pinned buffers, pair by pair. */
  function expectSameBytes(sequential: Buffer[], batched: Buffer[]): void {
    sequential.forEach((one, i) => {
      const other = batched[i]!;
      const oneHost = pinnedBuffer(one.size);
      const otherHost = pinnedBuffer(other.size);
      one.copyTo(oneHost, { stream });
      other.copyTo(otherHost, { stream });
      stream.sync();
      expect(otherHost.hostView()).toEqual(oneHost.hostView());
    });
  }

  it('TestCopyBatchEquivalence.test_batch_matches_sequential_copy_to: the batch writes what copyTo per pair writes', () => {
    const { srcs } = h2dBuffers();
    for (const [i, src] of srcs.entries()) setBuffer(src, i + 50);
    const sequential = srcs.map(() => deviceBuffer());
    for (const [i, src] of srcs.entries()) src.copyTo(sequential[i]!, { stream });
    const batched = srcs.map(() => deviceBuffer());
    copyBatch(stream, batched, srcs);
    stream.sync();
    expectSameBytes(sequential, batched);
    expect(holds(batched[3]!, 53)).toBe(true);
  });

  it('TestCopyBatchEquivalence.test_batch_matches_sequential_varied_sizes: the same with pairs of different sizes', () => {
    const sizes = [1024, 2048, 512];
    const srcs = sizes.map((size) => pinnedBuffer(size));
    for (const [i, src] of srcs.entries()) setBuffer(src, i + 60);
    const sequential = sizes.map((size) => deviceBuffer(size));
    for (const [i, src] of srcs.entries()) src.copyTo(sequential[i]!, { stream });
    const batched = sizes.map((size) => deviceBuffer(size));
    copyBatch(stream, batched, srcs);
    stream.sync();
    expectSameBytes(sequential, batched);
    expect(holds(batched[2]!, 62)).toBe(true);
  });

  it('TestCopyBatchEquivalence.test_batch_matches_sequential_d2d: the same device -> device', () => {
    const { srcs, dsts: sequential } = deviceBuffers();
    for (const [i, src] of srcs.entries()) src.fill(i + 70, { stream });
    for (const [i, src] of srcs.entries()) src.copyTo(sequential[i]!, { stream });
    const batched = srcs.map(() => deviceBuffer());
    copyBatch(stream, batched, srcs);
    stream.sync();
    expectSameBytes(sequential, batched);
    expect(holds(batched[0]!, 70)).toBe(true);
  });

  it('TestCopyBatchStreamSemantics.test_ordered_between_prior_and_later_stream_work: the batch sees the fill before it and not the one after', () => {
    const { srcs, dsts } = deviceBuffers();
    const before = 11;
    const after = 22;
    for (const src of srcs) src.fill(before, { stream });
    copyBatch(stream, dsts, srcs);
    for (const src of srcs) src.fill(after, { stream });
    stream.sync();
    for (const dst of dsts) expect(holds(dst, before)).toBe(true);
    for (const src of srcs) expect(holds(src, after)).toBe(true);
  });

  it('TestCopyBatchStreamSemantics.test_graph_builder_is_rejected: only a Stream is taken; a stream-shaped object is a TypeError, before any copy', () => {
    const { srcs, dsts } = deviceBuffers();
    for (const src of srcs) src.fill(3, { stream });
    for (const dst of dsts) dst.fill(0, { stream });
    const builderLike = { handle: stream.handle, device: stream.device, isClosed: false, stream };
    expect(() => copyBatch(builderLike as never, dsts, srcs)).toThrow(strictTypeError);
    expect(() => copyBatch(Object.create(stream) as never, dsts, srcs)).toThrow(strictTypeError);
    stream.sync();
    for (const dst of dsts) expect(holds(dst, 0)).toBe(true);
  });

  it('TestCopyBatchStreamSemantics.test_legacy_default_stream_token_is_rejected: the token 1 is a TypeError, before any copy', () => {
    const { srcs, dsts } = h2dBuffers();
    for (const src of srcs) setBuffer(src, 5);
    for (const dst of dsts) dst.fill(0, { stream });
    expect(() => copyBatch(1 as never, dsts, srcs)).toThrow(strictTypeError);
    stream.sync();
    for (const dst of dsts) expect(holds(dst, 5)).toBe(false);
  });

  it("TestCopyBatchStreamSemantics.test_per_thread_default_stream_token_is_accepted: cumem's default stream works as any stream (the raw token 2 is a TypeError)", () => {
    const src = pinnedBuffer();
    const dst = kept(device.allocate(SIZE));
    setBuffer(src, 99);
    expect(() => copyBatch(2 as never, [dst], [src])).toThrow(strictTypeError);
    const perDevice = defaultStream(0);
    copyBatch(perDevice, [dst], [src]);
    perDevice.sync();
    expect(holds(dst, 99)).toBe(true);
  });
});
