// The per-element checks of the batch operations over many slices (batch-buffer-check.ts): what
// is asked once per parent must still catch a bad element anywhere, before any driver call.
import { CudaStateError, Device, type Driver } from '@cumem/core-types';
import { Buffer, DeviceMemoryResource, ManagedMemoryResource, Stream, useDriver } from '@cumem/memory';
import { download } from '@cumem/test-support';
import {
  countingDriver,
  createReferenceDriver,
  type DriverCallLog,
  describeEachDriver,
} from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, patternBytes } from '../../test/support.js';
import { discardBatch, prefetchBatch } from '../managed/managed-batch.js';
import { copyBatch } from './copy-batch.js';
import { writeSize } from './range-scratch.js';

const RANGES = 1024;
const BYTES = 256;

describeEachDriver(adapters, 'batch checks over many slices', (entry) => {
  let log: DriverCallLog;
  let first: Driver;
  let other: Driver;
  let stream: Stream;
  let resource: DeviceMemoryResource;
  let source: Buffer;
  let target: Buffer;
  let managed: Buffer;
  const slices = (buffer: Buffer, count = RANGES) =>
    Array.from({ length: count }, (_, i) => buffer.slice(i * BYTES, BYTES));

  beforeAll(() => {
    // Two counting wrappers of the same driver are two drivers to cumem: a buffer of the second
    // is not memory of a stream of the first.
    const counted = countingDriver(entry.driver);
    log = counted.log;
    first = counted.driver;
    other = countingDriver(entry.driver).driver;
    useDriver(first);
    stream = Stream.create(0);
    resource = new DeviceMemoryResource(0);
    source = resource.allocate(RANGES * BYTES);
    target = resource.allocate(RANGES * BYTES);
    managed = new ManagedMemoryResource().allocate(RANGES * BYTES);
    source.copyFrom(patternBytes(RANGES * BYTES, 3));
  });

  afterAll(() => {
    for (const buffer of [source, target, managed]) buffer.close();
    stream.close();
    useDriver(entry.driver);
  });

  it('copies 1024 slices of one buffer into 1024 of another in one batch call', () => {
    target.fill(0);
    stream.sync();
    log.reset();
    copyBatch(stream, slices(target), slices(source), undefined, { strategy: 'batch' });
    stream.sync();
    expect(download(target)).toEqual(download(source));
    if (entry.driver.capabilities.batchMemcpy) {
      expect(log.calls.filter((call) => call === 'memcpyBatchAsync')).toHaveLength(1);
    }
  });

  it('refuses a buffer of another driver at index 1000 before any driver call', () => {
    useDriver(other);
    const foreign = new DeviceMemoryResource(0).allocate(BYTES);
    const foreignManaged = new ManagedMemoryResource().allocate(BYTES);
    useDriver(first);
    const srcs = slices(source);
    srcs[1000] = foreign;
    const targets = slices(managed);
    targets[1000] = foreignManaged;
    log.reset();
    expect(() => copyBatch(stream, slices(target), srcs)).toThrow(/srcs\[1000\] belongs to driver/);
    expect(() => prefetchBatch(stream, targets, new Device(0))).toThrow(/targets\[1000\] belongs to driver/);
    expect(() => discardBatch(stream, targets)).toThrow(CudaStateError);
    expect(log.calls).toEqual([]);
    foreign.close();
    foreignManaged.close();
  });

  it('finds a closed parent at the slice where its run starts', () => {
    const first = resource.allocate(512 * BYTES);
    const second = resource.allocate(512 * BYTES);
    const srcs = [...slices(first, 512), ...slices(second, 512)];
    second.close();
    log.reset();
    expect(() => copyBatch(stream, slices(target), srcs)).toThrow(CudaStateError);
    expect(() => copyBatch(stream, slices(target), srcs)).toThrow(/srcs\[512\]/);
    expect(log.calls).toEqual([]);
    first.close();
  });

  it('finds a closed slice among open slices of an open parent, and slices of a closed slice', () => {
    const srcs = slices(source);
    srcs[777]!.close();
    log.reset();
    expect(() => copyBatch(stream, slices(target), srcs)).toThrow(/srcs\[777\]/);
    const middle = source.slice(0, 100 * BYTES);
    const nested = [...slices(source, 700), ...slices(middle, 100)];
    middle.close();
    expect(() => copyBatch(stream, slices(target, 800), nested)).toThrow(/srcs\[700\]/);
    const managedSlices = slices(managed);
    managedSlices[5]!.close();
    expect(() => prefetchBatch(stream, managedSlices, new Device(0))).toThrow(/targets\[5\]/);
    expect(log.calls).toEqual([]);
  });

  it("refuses slices whose parent the caller's code closed during the checks", () => {
    // The Proxy's trap closes the parent as element 5 is read: elements 0-4 were taken with it
    // open, and 5 on share its run. Nothing may be copied or prefetched from freed memory.
    const closingAt = <T extends object>(list: T[], at: number, close: () => void): T[] =>
      new Proxy(list, {
        get(array, key, receiver) {
          if (key === String(at)) close();
          return Reflect.get(array, key, receiver);
        },
      });
    const parent = resource.allocate(RANGES * BYTES);
    const managedParent = new ManagedMemoryResource().allocate(16 * BYTES);
    log.reset();
    const srcs = closingAt(slices(parent), 5, () => parent.close());
    expect(() => copyBatch(stream, slices(target), srcs)).toThrow(/srcs\[0\]/);
    const targets = closingAt(slices(managedParent, 16), 7, () => managedParent.close());
    expect(() => prefetchBatch(stream, targets, new Device(0))).toThrow(CudaStateError);
    const work = log.calls.filter((call) => call.startsWith('memcpy') || call.startsWith('memPrefetch'));
    expect(work).toEqual([]);
  });

  it('refuses imitations anywhere before any driver call', () => {
    const real = source.slice(0, BYTES);
    const imitations: unknown[] = [
      Object.create(real),
      new Proxy(real, {}),
      { handle: real.handle, size: BYTES, isClosed: false },
      5,
      null,
    ];
    log.reset();
    for (const imitation of imitations) {
      // First (before any parent is known), in a run of slices, and last.
      for (const at of [0, 900, RANGES - 1]) {
        const srcs: unknown[] = slices(source);
        srcs[at] = imitation;
        expect(() => copyBatch(stream, slices(target), srcs as Buffer[])).toThrow(
          `srcs[${at}] must be a Buffer`,
        );
        const dsts: unknown[] = slices(target);
        dsts[at] = imitation;
        expect(() => copyBatch(stream, dsts as Buffer[], slices(source))).toThrow(
          `dsts[${at}] must be a Buffer`,
        );
        const targets: unknown[] = slices(managed);
        targets[at] = imitation;
        expect(() => discardBatch(stream, targets as Buffer[])).toThrow(`targets[${at}] must be a Buffer`);
      }
    }
    expect(() => copyBatch(stream, [undefined] as never, [source])).toThrow('dsts[0] must be a Buffer');
    expect(log.calls).toEqual([]);
  });

  it('reads each element once: an array that answers differently later cannot swap in an imitation', () => {
    const imitation = { handle: managed.handle, size: BYTES, isClosed: false };
    // A Proxy of an array (Array.isArray says true) whose elements turn into the imitation
    // after their first read; returns the Proxy and the reads per index.
    const changing = (buffers: Buffer[]): [Buffer[], Map<PropertyKey, number>] => {
      const reads = new Map<PropertyKey, number>();
      const proxy = new Proxy(buffers, {
        get(array, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) {
            const count = (reads.get(key) ?? 0) + 1;
            reads.set(key, count);
            if (count > 1) return imitation;
          }
          return Reflect.get(array, key, receiver);
        },
      });
      return [proxy, reads];
    };
    target.fill(0);
    stream.sync();
    const [srcs, srcReads] = changing(slices(source, 4));
    const [dsts, dstReads] = changing(slices(target, 4));
    copyBatch(stream, dsts, srcs);
    stream.sync();
    expect(download(target.slice(0, 4 * BYTES))).toEqual(download(source.slice(0, 4 * BYTES)));
    expect([...srcReads.values(), ...dstReads.values()]).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    for (const strategy of ['batch', 'loop'] as const) {
      const [targets, reads] = changing(slices(managed, 4));
      prefetchBatch(stream, targets, new Device(0), { strategy });
      expect([...reads.values()]).toEqual([1, 1, 1, 1]);
    }
    stream.sync();
  });

  it('checks as many pairs as the arrays first had: a length that grows later is not read', () => {
    // A Proxy of an array whose length says 4 on its first read and 8 after: the scratch was
    // sized for 4 ranges, so an eight-pair pass would record ranges past it.
    const growing = (buffers: Buffer[]) => {
      let reads = 0;
      return new Proxy(buffers, {
        get(array, key, receiver) {
          if (key === 'length') return ++reads === 1 ? 4 : 8;
          return Reflect.get(array, key, receiver);
        },
      });
    };
    target.fill(0);
    stream.sync();
    log.reset();
    copyBatch(stream, growing(slices(target, 8)), slices(source, 4));
    stream.sync();
    expect(log.calls.filter((call) => call.startsWith('memcpy'))).not.toEqual([]);
    expect(download(target.slice(0, 4 * BYTES))).toEqual(download(source.slice(0, 4 * BYTES)));
    expect(download(target.slice(4 * BYTES, 4 * BYTES))).toEqual(new Uint8Array(4 * BYTES));
  });

  it('a getter the checks run may start another copyBatch: both copies are made', () => {
    let armed = false;
    let inner = 0;
    const owner = {
      get isClosed() {
        // Armed only for the outer call: fromHandle asks too. Runs while the outer call checks
        // (and records) its pairs, in the shared scratch the inner call must not overwrite.
        if (armed && inner++ === 0) copyBatch(stream, slices(target, 2), slices(source, 2));
        return false;
      },
    };
    const wrapped = Buffer.fromHandle(source.handle + BigInt(8 * BYTES), BYTES, { owner });
    target.fill(0);
    stream.sync();
    armed = true;
    const srcs = [
      source.slice(4 * BYTES, BYTES),
      wrapped,
      source.slice(6 * BYTES, BYTES),
      source.slice(7 * BYTES, BYTES),
    ];
    copyBatch(stream, slices(target, 8).slice(4), srcs);
    stream.sync();
    expect(inner).toBeGreaterThan(0);
    const expected = download(source);
    const copied = download(target);
    const at = (bytes: Uint8Array, range: number) => bytes.subarray(range * BYTES, (range + 1) * BYTES);
    for (const [to, from] of [
      [0, 0],
      [1, 1],
      [4, 4],
      [5, 8],
      [6, 6],
      [7, 7],
    ] as const) {
      expect(at(copied, to)).toEqual(at(expected, from));
    }
    expect(at(copied, 2).every((byte) => byte === 0)).toBe(true);
    wrapped.close();
  });
});

describe('copyBatch ranges at addresses past 2**53', () => {
  // A reference driver whose allocations land where the test says, and whose batch copy
  // records what it was given: the ranges are read from the packed arrays the driver gets.
  function recordingDriver(addresses: bigint[]) {
    const driver = createReferenceDriver();
    const batches: { dsts: bigint[]; srcs: bigint[]; sizes: bigint[] }[] = [];
    Object.assign(driver, {
      memAllocFromPoolAsync: () => addresses.shift() as bigint,
      memFreeAsync: () => {},
      memcpyBatchAsync: (
        dsts: BigUint64Array,
        srcs: BigUint64Array,
        sizes: BigUint64Array,
        count: number,
      ) => {
        batches.push({
          dsts: [...dsts.subarray(0, count)],
          srcs: [...srcs.subarray(0, count)],
          sizes: [...sizes.subarray(0, count)],
        });
      },
    });
    return { driver, batches };
  }

  it('packs every address exactly, and merges touching ranges only where a Number is exact', () => {
    const edge = 2n ** 53n;
    // Three touching slices on each side, the destination's across 2**53: the first two merge
    // (every start a safe integer), the third destination starts past 2**53 and stays its own
    // range (a Number there cannot tell touching from 1 byte apart).
    const { driver, batches } = recordingDriver([edge - 150n, edge - 1150n, 2n ** 60n + 1n]);
    useDriver(driver);
    try {
      const stream = Stream.create(0);
      const resource = new DeviceMemoryResource(0);
      const dst = resource.allocate(300);
      const src = resource.allocate(300);
      const thirds = (buffer: Buffer) => [0, 100, 200].map((offset) => buffer.slice(offset, 100));
      copyBatch(stream, thirds(dst), thirds(src), undefined, { strategy: 'batch' });
      expect(batches).toEqual([
        {
          dsts: [edge - 150n, edge + 50n],
          srcs: [edge - 1150n, edge - 950n],
          sizes: [200n, 100n],
        },
      ]);
      // Past 2**53 on both sides (odd addresses a Number would round): nothing merges, every address exact.
      batches.length = 0;
      const high = thirds(resource.allocate(300));
      copyBatch(
        stream,
        high,
        high.map((slice) => slice),
        undefined,
        { strategy: 'batch' },
      );
      expect(batches[0]!.dsts).toEqual([2n ** 60n + 1n, 2n ** 60n + 101n, 2n ** 60n + 201n]);
      expect(batches[0]!.sizes).toEqual([100n, 100n, 100n]);
    } finally {
      useDriver(createReferenceDriver());
    }
  });

  it('packs sizes of 4 GiB and more exactly', () => {
    const values = new BigUint64Array(5);
    const halves = new Uint32Array(values.buffer);
    const sizes = [0, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER];
    for (const [i, size] of sizes.entries()) writeSize(halves, i, size);
    expect([...values]).toEqual(sizes.map(BigInt));
  });
});
