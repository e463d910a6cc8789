// Every public getter and method of a Buffer (and of ManagedBuffer and VirtualBuffer through the
// base) refuses a receiver that only looks like a buffer, a Proxy of one or an object inheriting
// from one, with cumem's own TypeError naming the member, never the engine's "Cannot read
// private member"; and what String() and util.inspect show of a buffer: its kind, size, device,
// address and whether it is closed, never the driver's state.
import { inspect } from 'node:util';
import type { Driver } from '@cumem/core-types';
import { createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { ManagedBuffer } from '../resources/managed/managed-buffer.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { VirtualMemoryResource } from '../resources/virtual/virtual-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Buffer } from './buffer.js';
import { BufferBase } from './buffer-base.js';

// The members every buffer has from BufferBase and Buffer; toString and util.inspect.custom
// answer for any receiver (an imitation shows as one).
function bufferMembers(): { owner: object; key: string | symbol; descriptor: PropertyDescriptor }[] {
  const members = [];
  for (const owner of [BufferBase.prototype, Buffer.prototype]) {
    for (const key of Reflect.ownKeys(owner)) {
      if (key === 'constructor' || key === 'toString' || key === inspect.custom) continue;
      members.push({
        owner,
        key,
        descriptor: Object.getOwnPropertyDescriptor(owner, key) as PropertyDescriptor,
      });
    }
  }
  return members;
}

function callMember(descriptor: PropertyDescriptor, receiver: unknown): unknown {
  if (descriptor.get !== undefined) return descriptor.get.call(receiver);
  return (descriptor.value as (...args: unknown[]) => unknown).call(receiver, new Uint8Array(8));
}

function expectRefused(run: () => unknown, what: string): void {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error, what).toBeInstanceOf(TypeError);
  expect((error as Error).message, what).not.toMatch(/private member|Cannot read/);
  expect((error as Error).message, what).toMatch(/not a Buffer/);
}

function suite(driver: () => Driver): void {
  beforeAll(() => useDriver(driver()));

  it('every getter and method refuses a Proxy of a buffer and an object inheriting from one, for each class', () => {
    const buffers: Buffer[] = [
      new DeviceMemoryResource(0).allocate(64),
      new PinnedMemoryResource().allocate(64),
      new ManagedMemoryResource().allocate(64),
    ];
    const virtual = new VirtualMemoryResource(0);
    buffers.push(virtual.allocate(64));
    buffers.push(buffers[0]?.slice(8, 8) as Buffer);
    const members = bufferMembers();
    expect(members.map(({ key }) => String(key))).toEqual(
      expect.arrayContaining([
        'size',
        'handle',
        'isClosed',
        'toDLPack',
        'close',
        'copyFrom',
        'slice',
        'hostView',
      ]),
    );
    for (const buffer of buffers) {
      const kind = buffer.constructor.name;
      for (const receiver of [new Proxy(buffer, {}), Object.create(buffer) as Buffer]) {
        for (const { key, descriptor } of members) {
          expectRefused(() => callMember(descriptor, receiver), `${kind}.${String(key)}`);
        }
        // Through the receiver's own prototype chain as a program would call them.
        expectRefused(() => receiver.size, `${kind} size`);
        expectRefused(() => receiver.copyFrom(new Uint8Array(64)), `${kind} copyFrom`);
        expectRefused(() => receiver.close(), `${kind} close`);
      }
      expect(buffer.isClosed).toBe(false);
    }
    for (const buffer of buffers.reverse()) buffer.close();
    virtual.close();
  });

  it('a revoked Proxy is refused the same way', () => {
    using buffer = new DeviceMemoryResource(0).allocate(64);
    const { proxy, revoke } = Proxy.revocable(buffer, {});
    revoke();
    for (const { key, descriptor } of bufferMembers()) {
      expectRefused(() => callMember(descriptor, proxy), String(key));
    }
  });

  it('String() and util.inspect show kind, size, device, address and closed, and nothing of the driver', () => {
    const device = new DeviceMemoryResource(0).allocate(64);
    const address = `0x${device.handle.toString(16)}`;
    expect(String(device)).toBe(`Buffer(size: 64, device: 0, address: ${address}, closed: false)`);
    expect(inspect(device)).toBe(`Buffer { size: 64, device: 0, address: '${address}', closed: false }`);
    expect(inspect({ nested: { deeper: device } }, { depth: 0 })).toContain('[Object]');
    expect(inspect([device], { depth: -1 })).toContain('[Array]');
    const pinned = new PinnedMemoryResource().allocate(32);
    expect(String(pinned)).toMatch(/^Buffer\(size: 32, device: host, address: 0x[0-9a-f]+, closed: false\)$/);
    const managed = new ManagedMemoryResource().allocate(16);
    expect(managed).toBeInstanceOf(ManagedBuffer);
    expect(String(managed)).toMatch(/^ManagedBuffer\(size: 16, device: /);
    const slice = device.slice(8, 8);
    expect(String(slice)).toBe(
      `Buffer(size: 8, device: 0, address: 0x${(device.handle + 8n).toString(16)}, closed: false)`,
    );
    device.close();
    expect(String(device)).toContain('closed: true');
    expect(inspect(slice)).toContain('closed: true');
    for (const text of [inspect(device), inspect(pinned, { showHidden: true }), inspect(managed)]) {
      expect(text).not.toMatch(/runtime|driver|resource|views|record|#/i);
    }
    // An imitation neither throws nor shows the real buffer's facts.
    expect(String(new Proxy(pinned, {}))).toBe('[Buffer imitation]');
    expect(inspect(Object.create(pinned))).toBe('[Buffer imitation]');
    pinned.close();
    managed.close();
  });
}

describe('Buffer members (reference driver)', () => suite(() => createReferenceDriver()));
describeEachDriver(adapters, 'Buffer members', (entry) => suite(() => entry.driver));
