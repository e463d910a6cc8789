// Issue 45 (brand checks) and 46 (debuggable objects), for the public classes of the memory
// package's stream, resources, interop and copy folders: every public method and getter called
// on a Proxy of a real object, or on an object inheriting from one, throws a TypeError naming
// the class and the member (never the engine's "Cannot read private member"); toString and
// util.inspect show the kind and facts (device, handle, closed or not), never the driver's
// internals, and describe an imitation without throwing.
import { closeSync, openSync } from 'node:fs';
import { inspect } from 'node:util';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { registerHostMemory } from '../copy/host-registration.js';
import { IpcAllocationHandle } from '../interop/ipc/ipc-allocation-handle.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { VirtualMemoryResource } from '../resources/virtual/virtual-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Event } from './event.js';
import { Stream } from './stream.js';

type Closable = { close(): void };

// A handle owning a duplicate of a descriptor of /dev/null (the original closed at once).
function handleOfNullDevice(): IpcAllocationHandle {
  const descriptor = openSync('/dev/null', 'r');
  try {
    return IpcAllocationHandle.fromFileDescriptor(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function makeObjects(hostPools: boolean): [string, Closable][] {
  const objects: [string, Closable][] = [
    ['Stream', Stream.create(0)],
    ['Event', Event.create(0)],
    ['DeviceMemoryResource', new DeviceMemoryResource(0, {})],
    ['LegacyPinnedMemoryResource', new LegacyPinnedMemoryResource()],
    ['ManagedMemoryResource', new ManagedMemoryResource()],
    ['VirtualMemoryResource', new VirtualMemoryResource(0)],
    ['HostRegistration', registerHostMemory(new Uint8Array(8192))],
    ['IpcAllocationHandle', handleOfNullDevice()],
  ];
  if (hostPools) objects.push(['PinnedMemoryResource', new PinnedMemoryResource({})]);
  const source = new DeviceMemoryResource(0).allocate(64);
  objects.push(['DLPackCapsule', source.toDLPack()]);
  return objects;
}

// Members that answer for any receiver: describing an imitation must not throw.
const describing = new Set<string | symbol>(['constructor', 'toString', inspect.custom, Symbol.toStringTag]);

function membersOf(object: object): Map<string | symbol, PropertyDescriptor> {
  const members = new Map<string | symbol, PropertyDescriptor>();
  for (
    let proto = Object.getPrototypeOf(object);
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Reflect.ownKeys(proto)) {
      if (describing.has(key) || members.has(key)) continue;
      members.set(key, Object.getOwnPropertyDescriptor(proto, key) as PropertyDescriptor);
    }
  }
  return members;
}

describeEachDriver(adapters, 'brand checks and descriptions', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('every member refuses Proxies and heirs with a TypeError naming the class and member', () => {
    let checked = 0;
    for (const [kind, real] of makeObjects(entry.driver.capabilities.hostMemoryPools)) {
      for (const imitation of [new Proxy(real, {}), Object.create(real)]) {
        for (const [key, descriptor] of membersOf(real)) {
          const name = typeof key === 'symbol' ? (key.description ?? '') : key;
          const call = descriptor.get
            ? () => descriptor.get?.call(imitation)
            : typeof descriptor.value === 'function'
              ? () => descriptor.value.call(imitation)
              : undefined;
          if (call === undefined) continue;
          expect(call, `${kind}.${name}`).toThrow(TypeError);
          expect(call, `${kind}.${name}`).toThrow(
            new RegExp(`\\.\\[?${name.replace(/\./g, '\\.')}\\]? was called on`),
          );
          checked++;
        }
        expect(String(imitation)).toBe(`[${kind} imitation]`);
        // util.inspect looks through a Proxy to its target; an heir it describes as an imitation.
        const text = inspect(imitation);
        if (!Object.prototype.isPrototypeOf.call(real, imitation)) expect(text).toContain(kind);
        else expect(text).toBe(`[${kind} imitation]`);
      }
      real.close();
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("the views and ManagedBuffer's own members refuse Proxies and heirs the same way", () => {
    const pool = new DeviceMemoryResource(0, {});
    const managed = new ManagedMemoryResource().allocate(4096);
    const objects: [string, object, boolean][] = [
      ['PeerAccessView', pool.peerAccessibleBy, true],
      ['AccessedByView', managed.accessedBy, true],
      // Only its own members: Buffer's are the buffer folder's to guard.
      ['ManagedBuffer', managed, false],
    ];
    for (const [kind, real, inherited] of objects) {
      const members = inherited
        ? membersOf(real)
        : new Map(
            Reflect.ownKeys(Object.getPrototypeOf(real))
              .filter((key) => !describing.has(key))
              .map((key) => [key, Object.getOwnPropertyDescriptor(Object.getPrototypeOf(real), key)]),
          );
      expect(members.size, kind).toBeGreaterThan(3);
      for (const imitation of [new Proxy(real, {}), Object.create(real)]) {
        for (const [key, descriptor] of members) {
          if (descriptor === undefined) continue;
          const name = typeof key === 'symbol' ? (key.description ?? '') : key;
          const call = descriptor.get
            ? () => descriptor.get?.call(imitation)
            : typeof descriptor.value === 'function'
              ? () => descriptor.value.call(imitation)
              : undefined;
          if (call === undefined) continue;
          expect(call, `${kind}.${name}`).toThrow(new RegExp(`^${kind}\\.`));
        }
      }
    }
    managed.close();
    pool.close();
  });

  it('the real objects still work through the guarded members', () => {
    using stream = Stream.create(0);
    const event = stream.record();
    stream.sync();
    expect(event.isDone).toBe(true);
    const mr = new DeviceMemoryResource(0, {});
    using buffer = mr.allocate(64, { stream });
    buffer.close({ stream });
    expect(mr.isClosed).toBe(false);
    mr.close();
    expect(mr.isClosed).toBe(true);
    event.close();
  });

  it('toString and util.inspect show kind and facts, closed or not, and no internals', () => {
    for (const [kind, object] of makeObjects(entry.driver.capabilities.hostMemoryPools)) {
      const texts = [String(object), inspect(object), inspect({ nested: object }, { depth: 4 })];
      for (const text of texts) {
        expect(text).toContain(kind);
        expect(text).not.toMatch(/runtime|driver|Map\(|Symbol\(/);
        expect(text.length).toBeLessThan(400);
      }
      expect(String(object)).toMatch(/closed: false/);
      object.close();
      expect(inspect(object)).toMatch(/closed: true/);
    }
    using stream = Stream.create(0);
    expect(String(stream)).toMatch(
      /^Stream\(device: 0, handle: 0x[0-9a-f]+, default: false, closed: false\)$/,
    );
    expect(inspect({ a: { b: stream } }, { depth: 0 })).toContain('[Object]');
    const mr = new DeviceMemoryResource(0, {});
    expect(String(mr)).toMatch(/^DeviceMemoryResource\(device: 0, .*pool: 0x[0-9a-f]+, owned: true/);
    mr.close();
  });
});
