// Issue 45, item 6: every public method and getter of this package's classes checks its receiver
// by brand, and the importers refuse Proxies of Buffers and views and objects inheriting from
// them with cumem's own TypeError, never the engine's private-member error.
import { DeviceMemoryResource, useDriver } from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, strictTypeError } from '../test/support.js';
import { StridedLayout } from './strided/strided-layout.js';
import { StridedMemoryView } from './strided/strided-memory-view.js';

/** A Proxy of `value` and two objects inheriting from it. */
function lookalikes(value: object): [string, object][] {
  return [
    ['a Proxy', new Proxy(value, {})],
    ['an object created from it', Object.create(value) as object],
    ['an object whose prototype it is', Object.setPrototypeOf({ extra: 1 }, value) as object],
  ];
}

/** Each public member of `prototype` called (method) or read (getter) on `receiver`. */
function everyMember(
  prototype: object,
  exempt: readonly string[],
): [string, (receiver: object) => unknown][] {
  const members: [string, (receiver: object) => unknown][] = [];
  for (const key of Reflect.ownKeys(prototype)) {
    if (key === 'constructor' || exempt.includes(String(key))) continue;
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!;
    const name = typeof key === 'symbol' ? `[${key.description}]` : key;
    if (typeof descriptor.get === 'function') {
      members.push([name, (receiver) => Reflect.get(prototype, key, receiver)]);
    } else if (typeof descriptor.value === 'function') {
      members.push([name, (receiver) => Reflect.apply(descriptor.value, receiver, [])]);
    }
  }
  return members;
}

describe('the strict TypeError check', () => {
  it("accepts cumem's own TypeErrors and refuses the engine's", () => {
    expect(() => StridedLayout.dense('x' as never, 4)).toThrow(strictTypeError);
    expect(() => (undefined as unknown as { x: { y: number } }).x.y).not.toThrow(strictTypeError);
    class Private {
      readonly #secret = 1;
      secret(): number {
        return this.#secret;
      }
    }
    const proxy = new Proxy(new Private(), {});
    expect(() => proxy.secret()).toThrow(/private/);
    expect(() => proxy.secret()).not.toThrow(strictTypeError);
  });
});

describe('StridedLayout members check their receiver', () => {
  const layout = StridedLayout.dense([4, 3], 4);
  const members = everyMember(StridedLayout.prototype, ['strideOrder', 'contiguousIn']);

  it('has members to check', () => expect(members.length).toBeGreaterThan(10));

  for (const [what, receiver] of lookalikes(layout)) {
    it(`every member refuses ${what} of a layout, naming the member`, () => {
      for (const [name, use] of members) {
        expect(() => use(receiver), name).toThrow(strictTypeError);
        expect(() => use(receiver), name).toThrow(
          new RegExp(`StridedLayout\\.${name.replace(/[[\]]/g, '\\$&')} was called on`),
        );
      }
    });
  }

  it('a real layout still answers every member', () => {
    expect([layout.ndim, layout.volume, layout.isContiguousC, layout.requiredSizeInBytes()]).toEqual([
      2,
      12,
      true,
      48,
    ]);
    expect(String(layout)).toBe('StridedLayout(shape=[4, 3], strides=[3, 1], itemsize=4)');
  });
});

describeEachDriver(adapters, 'StridedMemoryView members and importers check by brand', (entry) => {
  let mr: DeviceMemoryResource;
  beforeAll(() => {
    useDriver(entry.driver);
    mr = new DeviceMemoryResource(0);
  });

  it('every public method and getter refuses a Proxy of a view or an object inheriting from one, before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      using buffer = new DeviceMemoryResource(0).allocate(64);
      const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([16], 4));
      const members = everyMember(StridedMemoryView.prototype, ['checkLive', 'asCopyable']);
      expect(members.map(([name]) => name)).toEqual(
        expect.arrayContaining([
          'ptr',
          'shape',
          'cudaArrayInterface',
          'view',
          'copyFrom',
          'toDLPack',
          'close',
        ]),
      );
      log.reset();
      for (const [what, receiver] of lookalikes(view)) {
        for (const [name, use] of members) {
          expect(() => use(receiver), `${name} of ${what}`).toThrow(strictTypeError);
          expect(() => use(receiver), `${name} of ${what}`).toThrow(/StridedMemoryView\.\S+ was called on/);
        }
      }
      expect(log.calls).toEqual([]);
    }));

  it("StridedMemoryView.from refuses a Proxy of a Buffer, or an heir of one, with cumem's TypeError before any driver call", () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      using buffer = new DeviceMemoryResource(0).allocate(64);
      const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([16], 4));
      log.reset();
      for (const [what, fake] of [...lookalikes(buffer), ...lookalikes(view)]) {
        expect(() => StridedMemoryView.from(fake), what).toThrow(strictTypeError);
        expect(() => StridedMemoryView.from(fake), what).toThrow(
          /is a Proxy of a (Buffer|StridedMemoryView)/,
        );
        expect(() => StridedMemoryView.fromBuffer(fake as never, StridedLayout.dense([16], 4)), what).toThrow(
          strictTypeError,
        );
      }
      const revocable = Proxy.revocable(buffer, {});
      revocable.revoke();
      expect(() => StridedMemoryView.from(revocable.proxy)).toThrow(strictTypeError);
      expect(() => StridedMemoryView.from(revocable.proxy)).toThrow(/revoked Proxy/);
      expect(() =>
        StridedMemoryView.fromBuffer(revocable.proxy as never, StridedLayout.dense([1], 1)),
      ).toThrow(/revoked Proxy/);
      expect(log.calls).toEqual([]);
    }));

  it('a real view and a real buffer still work through from()', () => {
    using buffer = mr.allocate(64);
    const view = StridedMemoryView.from(buffer, { stream: -1 });
    expect([view.ptr, view.shape, view.dtype, view.exportingObject === buffer]).toEqual([
      buffer.handle,
      [64],
      'uint8',
      true,
    ]);
    expect(StridedMemoryView.from(view)).toBe(view);
    expect(String(view)).toBe('StridedMemoryView(uint8, shape=[64], device=0)');
  });
});
