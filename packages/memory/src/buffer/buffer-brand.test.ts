// Issue 21, item 2: the safe API takes only real Buffers (the private-field brand), and reads
// their facts from cumem's own state, so imitations never reach the driver.
import { CudaStateError, Device } from '@cumem/core-types';
import { imitationsOf, refuseImitations, withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedBuffer } from '../resources/managed/managed-buffer.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { driverOf } from '../runtime/object-driver.js';
import { Stream } from '../stream/stream.js';
import { Buffer } from './buffer.js';
import { BufferBase, bufferBrand } from './buffer-base.js';
import { bufferReachableOn } from './buffer-peer-copy.js';

describeEachDriver(adapters, 'Buffer brand', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('accepts real Buffers, ManagedBuffers and slices, and nothing else', () => {
    const mr = new DeviceMemoryResource(0);
    using buffer = mr.allocate(64);
    using slice = buffer.slice(8, 8);
    expect(bufferBrand.has(buffer)).toBe(true);
    expect(bufferBrand.has(slice)).toBe(true);
    for (const { what, value } of imitationsOf(buffer)) {
      expect(bufferBrand.has(value), what).toBe(false);
      expect(() => bufferBrand.check(value, 'src'), what).toThrow(TypeError);
    }
    for (const value of [null, undefined, 1, 'buffer', {}, []]) expect(bufferBrand.has(value)).toBe(false);
  });

  it('refuses imitations in copyTo, copyFrom, driverOf and bufferReachableOn before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new DeviceMemoryResource(0);
      using victim = mr.allocate(64);
      using dst = mr.allocate(64);
      using stream = Stream.create(0);
      const other = { handle: victim.handle, size: 64 };
      refuseImitations(
        log,
        victim,
        (fake, what) => {
          expect(() => dst.copyFrom(fake), what).toThrow(TypeError);
          expect(() => dst.copyTo(fake), what).toThrow(TypeError);
          expect(() => driverOf(fake), what).toThrow(TypeError);
          expect(() => bufferReachableOn(stream, fake, false), what).toThrow(TypeError);
        },
        other,
      );
    }));

  it('a real Buffer cannot be made to name other memory: own properties and another prototype change only what the program reads', () => {
    const pinned = new PinnedMemoryResource();
    using buffer = pinned.allocate(64);
    using other = pinned.allocate(64);
    const handle = buffer.handle;
    // A Buffer is an ordinary object (issue 26: no preventExtensions per allocate): a program
    // may shadow its getters, but cumem reads the private state (shadowed-members.test.ts).
    Object.defineProperty(buffer, 'handle', { get: () => other.handle });
    Object.defineProperty(buffer, 'size', { value: 1 << 30 });
    (buffer as unknown as { pointer: bigint }).pointer = other.handle;
    (buffer as unknown as { flags: number }).flags = 0;
    expect(buffer.handle).toBe(other.handle);
    expect(Object.getOwnPropertyDescriptor(BufferBase.prototype, 'handle')?.get?.call(buffer)).toBe(handle);
    const view = new Uint8Array(64).fill(7);
    buffer.copyFrom(view);
    const back = new Uint8Array(64);
    buffer.copyTo(back);
    expect(back).toEqual(view);
    other.copyTo(back);
    expect(back.some((byte) => byte === 7)).toBe(false);
    // Another prototype (a ManagedBuffer's) gives no managed methods over pinned memory's state.
    Object.setPrototypeOf(buffer, ManagedBuffer.prototype);
    expect(() => (buffer as unknown as ManagedBuffer).prefetch(new Device(0))).toThrow(TypeError);
    Object.setPrototypeOf(buffer, Buffer.prototype);
    buffer.close();
    expect(Object.getOwnPropertyDescriptor(BufferBase.prototype, 'isClosed')?.get?.call(buffer)).toBe(true);
    expect(() => buffer.copyFrom(view)).toThrow(CudaStateError);
  });

  it('getters of a real Buffer refuse an imitation as their receiver', () => {
    const pinned = new PinnedMemoryResource();
    using buffer = pinned.allocate(64);
    const fake = Object.create(buffer) as Buffer;
    // The private state is the real buffer's own: an inheriting object has none to report.
    expect(() => fake.handle).toThrow(TypeError);
    expect(() => fake.isClosed).toThrow(TypeError);
    expect(() => Buffer.fromHandle(buffer.handle, 64, { owner: fake })).toThrow(TypeError);
  });
});
