import type { Driver } from '@cumem/core-types';
import {
  Buffer,
  Device,
  DeviceMemoryResource,
  ManagedBuffer,
  ManagedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { discardBatch, prefetchBatch } from '../managed/managed-batch.js';
import { allocationOf, sameAllocation } from './allocation-identity.js';
import { copyBatch } from './copy-batch.js';

/** A reference driver that records the sizes of every range handed to the named entry points. */
function recordingDriver(names: readonly string[]): { driver: Driver; ranges: number[][] } {
  const inner = createReferenceDriver();
  const ranges: number[][] = [];
  const driver = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof property !== 'string' || !names.includes(property) || typeof value !== 'function')
        return value;
      return (...args: unknown[]) => {
        if (property.endsWith('BatchAsync')) {
          const sizes = args[property === 'memcpyBatchAsync' ? 2 : 1] as BigUint64Array;
          const count = args[property === 'memcpyBatchAsync' ? 3 : 2] as number;
          ranges.push(Array.from(sizes.subarray(0, count), Number));
        } else {
          ranges.push([args[property === 'memcpyAsync' ? 2 : 1] as number]);
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, ranges };
}

describe('allocationOf (which allocation a Buffer lies in)', () => {
  beforeAll(() => useDriver(createReferenceDriver()));

  it('follows slices, and owners that are Buffers containing the memory, to the outermost Buffer', () => {
    const big = new DeviceMemoryResource(0).allocate(4096);
    const half = big.slice(2048);
    expect(allocationOf(big)).toBe(big);
    expect(allocationOf(half)).toBe(big);
    expect(allocationOf(half.slice(16, 32))).toBe(big);
    const wrapped = Buffer.fromHandle(big.handle + 1024n, 1024, { owner: big });
    expect(allocationOf(wrapped)).toBe(big);
    expect(sameAllocation(wrapped, half)).toBe(true);
    big.close();
  });

  it('treats Buffers from a resource, and wrappers without a containing owner, as separate allocations', () => {
    const resource = new DeviceMemoryResource(0);
    const big = resource.allocate(4096);
    const other = resource.allocate(64);
    const bare = Buffer.fromHandle(big.handle, 2048);
    const ownedByOther = Buffer.fromHandle(big.handle + 2048n, 2048, { owner: other });
    const ownedByObject = Buffer.fromHandle(big.handle + 2048n, 2048, { owner: {} });
    expect(allocationOf(bare)).toBe(bare);
    // `other` does not contain the range, so it says nothing about which allocation it is in.
    expect(allocationOf(ownedByOther)).toBe(ownedByOther);
    expect(allocationOf(ownedByObject)).toBe(ownedByObject);
    expect(sameAllocation(bare, ownedByOther)).toBe(false);
    expect(sameAllocation(big, other)).toBe(false);
    big.close();
    other.close();
  });
});

describe('coalescing never merges ranges of different allocations', () => {
  // Two separate allocations whose addresses touch (as cuMemAllocManaged buffers can on a GPU,
  // where the driver refuses every merged range with CUDA_ERROR_INVALID_VALUE). The reference
  // driver does not place allocations next to each other, so two wrappers without a common
  // owner over the halves of one allocation stand in for them: by the rule they are two
  // allocations, and only `slice()`s of one Buffer are one.
  const managedNames = ['memPrefetchAsync', 'memPrefetchBatchAsync', 'memDiscardBatchAsync'];
  let recorder: ReturnType<typeof recordingDriver>;
  let stream: Stream;
  let big: ManagedBuffer;

  beforeAll(() => {
    recorder = recordingDriver([...managedNames, 'memcpyAsync', 'memcpyBatchAsync']);
    useDriver(recorder.driver);
    stream = Stream.create(0);
    big = new ManagedMemoryResource().allocate(4 * 4096);
  });

  function touching(): ManagedBuffer[] {
    return [0, 1, 2, 3].map((i) => ManagedBuffer.fromHandle(big.handle + BigInt(i * 4096), 4096));
  }

  for (const strategy of ['batch', 'loop'] as const) {
    it(`prefetchBatch and discardBatch keep touching allocations apart (strategy ${strategy})`, () => {
      recorder.ranges.length = 0;
      prefetchBatch(stream, touching(), new Device(0), { strategy });
      discardBatch(stream, touching(), { strategy });
      const expected = strategy === 'batch' ? [[4096, 4096, 4096, 4096]] : [[4096], [4096], [4096], [4096]];
      expect(recorder.ranges).toEqual([...expected, ...expected]);
      recorder.ranges.length = 0;
      const slices = [0, 1, 2, 3].map((i) => big.slice(i * 4096, 4096));
      prefetchBatch(stream, slices, new Device(0), { strategy });
      expect(recorder.ranges).toEqual([[4 * 4096]]);
      stream.sync();
    });

    it(`copyBatch merges a copy only when both sides continue within one allocation (strategy ${strategy})`, () => {
      const resource = new DeviceMemoryResource(0);
      const source = resource.allocate(4 * 256);
      const target = resource.allocate(4 * 256);
      const sourceSlices = [0, 1, 2, 3].map((i) => source.slice(i * 256, 256));
      const targetSlices = [0, 1, 2, 3].map((i) => target.slice(i * 256, 256));
      const targetWrappers = [0, 1, 2, 3].map((i) => Buffer.fromHandle(target.handle + BigInt(i * 256), 256));
      recorder.ranges.length = 0;
      copyBatch(stream, targetSlices, sourceSlices, undefined, { strategy });
      expect(recorder.ranges).toEqual([[1024]]);
      recorder.ranges.length = 0;
      copyBatch(stream, targetWrappers, sourceSlices, undefined, { strategy });
      expect(recorder.ranges.flat()).toEqual([256, 256, 256, 256]);
      stream.sync();
      source.close();
      target.close();
    });
  }
});
