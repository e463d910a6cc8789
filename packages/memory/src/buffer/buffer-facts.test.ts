// The readers @cumem/utils' batch checks use instead of Buffer's getters (buffer-facts.ts): the
// same facts, the same brand, for real Buffers only.
import { imitationsOf } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { driverOf } from '../runtime/object-driver.js';
import { Buffer } from './buffer.js';
import {
  bufferBrand,
  bufferByteSize,
  bufferDriver,
  bufferGroup,
  bufferParent,
  bufferPointer,
  bufferResource,
} from './buffer-facts.js';

describeEachDriver(adapters, 'buffer facts', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('read what the getters say, for buffers, slices and managed buffers', () => {
    const mr = new DeviceMemoryResource(0);
    using buffer = mr.allocate(4096);
    using slice = buffer.slice(1024, 512);
    using nested = slice.slice(8, 16);
    using managed = new ManagedMemoryResource().allocate(4096);
    for (const value of [buffer, slice, nested, managed]) {
      expect(bufferPointer(value)).toBe(value.handle);
      expect(bufferByteSize(value)).toBe(value.size);
      expect(bufferResource(value)).toBe(value.memoryResource);
      expect(bufferDriver(value)).toBe(driverOf(value));
    }
    expect(bufferParent(buffer)).toBe(null);
    expect(bufferParent(slice)).toBe(buffer);
    expect(bufferParent(nested)).toBe(slice);
    // The buffer whose facts each shares: the parent of a slice, else itself.
    expect(bufferGroup(buffer)).toBe(buffer);
    expect(bufferGroup(slice)).toBe(buffer);
    expect(bufferGroup(nested)).toBe(slice);
    expect(bufferGroup(managed)).toBe(managed);
  });

  it('tell a closed buffer and one following an owner, and leave the parent to isClosed', () => {
    const mr = new DeviceMemoryResource(0);
    const buffer = mr.allocate(4096);
    const slice = buffer.slice(0, 64);
    const owner = { isClosed: false };
    const wrapped = Buffer.fromHandle(buffer.handle, 64, { owner });
    expect(bufferGroup(wrapped)).toBe(null);
    expect(wrapped.isClosed).toBe(false);
    buffer.close();
    expect(bufferGroup(buffer)).toBe(null);
    // A slice's own bits say nothing of its parent: the batch checks ask the parent's isClosed.
    expect(bufferGroup(slice)).toBe(buffer);
    expect(slice.isClosed).toBe(true);
    wrapped.close();
  });

  it('refuse imitations, Proxies, inheritors and primitives as bufferBrand does', () => {
    const mr = new DeviceMemoryResource(0);
    using buffer = mr.allocate(64);
    for (const { what, value } of imitationsOf(buffer)) {
      expect(bufferBrand.has(value), what).toBe(false);
      expect(bufferGroup(value), what).toBe(undefined);
      expect(() => bufferPointer(value as Buffer), what).toThrow(TypeError);
      expect(() => bufferByteSize(value as Buffer), what).toThrow(TypeError);
      expect(() => bufferParent(value as Buffer), what).toThrow(TypeError);
      expect(() => bufferDriver(value as Buffer), what).toThrow(TypeError);
    }
    for (const value of [null, undefined, 1, 1n, 'buffer', {}, [], () => buffer]) {
      expect(bufferGroup(value)).toBe(undefined);
    }
  });
});
