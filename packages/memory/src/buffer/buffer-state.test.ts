// A Buffer's facts live in its BufferState (buffer-state.ts), held in a private field: a program
// sees no own property and nothing of the state, the facts stay per object and unforgeable, and
// cumem reads them with one reader (bufferState) that refuses anything but a real Buffer.
import { imitationsOf } from '@cumem/test-support';
import { countingDriver, createReferenceDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedBuffer } from '../resources/managed/managed-buffer.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Buffer } from './buffer.js';
import { BufferBase, bufferBrand, bufferState } from './buffer-base.js';

describe('BufferState', () => {
  beforeAll(() => useDriver(createReferenceDriver()));

  it('leaves the prototype chain and own properties of a buffer as they were', () => {
    expect(Object.getPrototypeOf(BufferBase.prototype)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(BufferBase)).toBe(Function.prototype);
    expect(Object.getPrototypeOf(Buffer.prototype)).toBe(BufferBase.prototype);
    expect(Object.getPrototypeOf(ManagedBuffer.prototype)).toBe(Buffer.prototype);
    using buffer = new DeviceMemoryResource(0).allocate(64);
    using slice = buffer.slice(8, 8);
    using managed = new ManagedMemoryResource().allocate(64);
    // No own property at all: the host views and finalizer record are private facts too.
    expect(Reflect.ownKeys(buffer)).toEqual([]);
    expect(Reflect.ownKeys(slice)).toEqual([]);
    expect(Reflect.ownKeys(managed)).toEqual([]);
    for (const value of [buffer, slice, managed]) {
      expect(Object.getPrototypeOf(value)).toBe(value.constructor.prototype);
    }
    // Nothing of BufferState shows on the classes a program can reach.
    for (const object of [BufferBase, BufferBase.prototype, Buffer, Buffer.prototype]) {
      expect(Reflect.ownKeys(object).some((key) => String(key).toLowerCase().includes('state'))).toBe(false);
    }
  });

  it('keeps each buffer its own facts', () => {
    const mr = new DeviceMemoryResource(0);
    const first = mr.allocate(64);
    const second = mr.allocate(128);
    expect(first.handle).not.toBe(second.handle);
    expect([first.size, second.size]).toEqual([64, 128]);
    first.close();
    expect([first.isClosed, second.isClosed]).toEqual([true, false]);
    expect(() => first.fill(0)).toThrow(/closed/);
    second.fill(1);
    bufferState(second).size = 96;
    expect([first.size, second.size]).toEqual([64, 96]);
    bufferState(second).size = 128;
    second.close();
  });

  it('has no constructor a program can use, and its facts cannot be read off an imitation', () => {
    using buffer = new DeviceMemoryResource(0).allocate(64);
    const BufferClass = Buffer as unknown as new (...parts: unknown[]) => Buffer;
    expect(() => new BufferClass()).toThrow(/no public constructor/);
    expect(() => new BufferClass(Symbol('cumem.buffer'), buffer.memoryResource, 0n, 64)).toThrow(
      /no public constructor/,
    );
    const inheriting = Object.create(buffer) as Buffer;
    expect(bufferBrand.has(inheriting)).toBe(false);
    expect(() => inheriting.size).toThrow(TypeError);
    expect(() => inheriting.isClosed).toThrow(TypeError);
    const proxy = new Proxy(buffer, {});
    expect(bufferBrand.has(proxy)).toBe(false);
    expect(() => proxy.handle).toThrow(TypeError);
  });

  // Issue 26: a buffer a resource allocated keeps no origin (parent, owner, pointer attributes);
  // slices and wrappers do, and external memory asks the driver of its attributes once.
  it('keeps the parent, owner and pointer attributes of slices and wrappers, asking the driver once', () => {
    const { driver, log } = countingDriver(createReferenceDriver());
    useDriver(driver);
    const mr = new ManagedMemoryResource();
    const buffer = mr.allocate(256);
    expect(buffer.owner).toBe(null);
    const slice = buffer.slice(16, 32);
    expect([slice.owner, slice.memoryResource]).toEqual([buffer, mr]);
    const owner = { isClosed: false };
    const external = Buffer.fromHandle(buffer.handle, 128, { owner });
    const bare = Buffer.fromHandle(buffer.handle, 64);
    const externalSlice = external.slice(8, 8);
    expect([external.owner, bare.owner, externalSlice.owner]).toEqual([owner, null, external]);
    log.reset();
    const ask = () => {
      for (const wrapped of [external, bare, externalSlice]) {
        expect([wrapped.isManaged, wrapped.isHostAccessible, wrapped.deviceId]).toEqual([true, true, 0]);
      }
    };
    ask();
    expect(log.calls).toContain('pointerGetAttribute');
    const asked = log.calls.length;
    ask();
    ask();
    expect(log.calls.length).toBe(asked);
    owner.isClosed = true;
    expect([external.isClosed, externalSlice.isClosed, bare.isClosed]).toEqual([true, true, false]);
    buffer.close();
    expect(slice.isClosed).toBe(true);
    useDriver(createReferenceDriver());
  });

  it('bufferState reads what the getters say, for buffers, slices and managed buffers', () => {
    const mr = new DeviceMemoryResource(0);
    using buffer = mr.allocate(4096);
    using slice = buffer.slice(1024, 512);
    using nested = slice.slice(8, 16);
    using managed = new ManagedMemoryResource().allocate(4096);
    for (const value of [buffer, slice, nested, managed]) {
      const state = bufferState(value);
      expect(state.buffer).toBe(value);
      expect([state.pointer, state.size, state.resource]).toEqual([
        value.handle,
        value.size,
        value.memoryResource,
      ]);
      expect([state.deviceId, state.isClosed, state.isManaged]).toEqual([
        value.deviceId,
        false,
        value.isManaged,
      ]);
    }
    expect(bufferState(managed).typeName).toBe('ManagedBuffer');
    expect(bufferState(buffer).parent).toBe(null);
    expect(bufferState(slice).parent).toBe(bufferState(buffer));
    expect(bufferState(nested).memoryOwner).toBe(buffer);
    // The state whose facts each shares: the parent's of a slice, else its own.
    expect(bufferState(buffer).group).toBe(bufferState(buffer));
    expect(bufferState(slice).group).toBe(bufferState(buffer));
    expect(bufferState(nested).group).toBe(bufferState(slice));
  });

  it('tells a closed buffer and one following an owner apart from the rest (group null)', () => {
    const mr = new DeviceMemoryResource(0);
    const buffer = mr.allocate(4096);
    const slice = buffer.slice(0, 64);
    const owner = { isClosed: false };
    const wrapped = Buffer.fromHandle(buffer.handle, 64, { owner });
    expect(bufferState(wrapped).group).toBe(null);
    buffer.close();
    expect(bufferState(buffer).group).toBe(null);
    // A slice's group is its parent's state, which the batch checks ask isClosed of.
    expect(bufferState(slice).group).toBe(bufferState(buffer));
    expect(slice.isClosed).toBe(true);
    wrapped.close();
  });

  it('bufferState refuses imitations, Proxies, inheritors and primitives with a TypeError of its own', () => {
    using buffer = new DeviceMemoryResource(0).allocate(64);
    for (const { what, value } of imitationsOf(buffer)) {
      expect(() => bufferState(value as Buffer), what).toThrow(/must be a Buffer of @cumem\/memory/);
    }
    for (const value of [null, undefined, 1, 1n, 'buffer', {}, []]) {
      expect(() => bufferState(value as unknown as Buffer)).toThrow(TypeError);
    }
  });
});
