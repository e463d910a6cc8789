// @cumem/memory reads what a Buffer is (pointer, size, resource, owner chain, closed state) and
// calls what it does (checkOpen, workDevice, ...) through private state and functions of its
// own, never through property lookup on the instance: an own property defined on a Buffer over a
// getter or method of its class changes nothing cumem does (issue 21). Every buffer of a test is
// shadowed member by member (see @cumem/test-support's shadowEveryMember) while each operation
// runs, the members of shadowed buffers are called through their prototypes, and each operation
// must read no shadow and still do its work. Buffers are extensible (issue 26): a test that fails here
// names a read cumem still makes through a Buffer's members.
import { Device, Host, NotSupportedError } from '@cumem/core-types';
import {
  collectGarbageUntil,
  download,
  patternBytes,
  ShadowScope,
  shadowEveryMember,
  upload,
  viaPrototype,
} from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { Buffer } from './buffer/buffer.js';
import { flushDeferredReleases } from './buffer/buffer-release.js';
import { copyRangesFromHost, copyRangesToHost } from './copy/host-range-copies.js';
import { finalizerReleases } from './diagnostics/resource-pressure.js';
import { DeviceMemoryResource } from './resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from './resources/legacy-pinned-memory-resource.js';
import { ManagedBuffer } from './resources/managed/managed-buffer.js';
import { ManagedMemoryResource } from './resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from './resources/pinned-memory-resource.js';
import { VirtualMemoryResource } from './resources/virtual/virtual-memory-resource.js';
import { useDriver } from './runtime/driver-selection.js';
import { defaultStream, Stream } from './stream/stream.js';

/** What a kind of buffer is, for picking the operations that apply to it. */
type Trait = 'resource' | 'host' | 'managed' | 'derived' | 'virtual';

interface Kind {
  readonly what: string;
  readonly traits: readonly Trait[];
  /** A buffer of `size` bytes; it and the buffers it derives from are added to `scope`. */
  make(scope: ShadowScope, size: number): Buffer;
}

interface Operation {
  readonly what: string;
  /** The trait a buffer needs for this operation (all buffers when absent). */
  readonly needs?: Trait;
  /** Runs the operation on `buffer` inside `scope.act`, then checks its effect. */
  run(buffer: Buffer, scope: ShadowScope): void;
}

const size = 256;
/**
 * Managed memory comes in whole 64 KiB pages, slices of it start on one: real drivers round
 * advice and prefetches to pages, and discards are kept to ranges of their own.
 */
const page = 1 << 16;
const pages = (bytes: number) => Math.ceil(bytes / page) * page;

/** The bytes of host memory of any form (a view or an ArrayBuffer). */
function bytesOf(memory: ArrayBufferView | ArrayBuffer): Uint8Array {
  return ArrayBuffer.isView(memory)
    ? new Uint8Array(memory.buffer, memory.byteOffset, memory.byteLength)
    : new Uint8Array(memory);
}

/** The forms of host memory copies take. */
const hostForms: readonly [string, (bytes: number) => ArrayBufferView | ArrayBuffer][] = [
  ['a Uint8Array', (bytes) => new Uint8Array(bytes)],
  ['an ArrayBuffer', (bytes) => new ArrayBuffer(bytes)],
  ['a Float64Array', (bytes) => new Float64Array(bytes / 8)],
  ['a DataView', (bytes) => new DataView(new ArrayBuffer(bytes))],
];

/** The public getters of every Buffer, read through the prototype and compared to the plain read. */
const publicFacts = [
  'size',
  'handle',
  'deviceId',
  'memoryResource',
  'owner',
  'isDeviceAccessible',
  'isHostAccessible',
  'isManaged',
  'isMapped',
  'isClosed',
] as const;

describeEachDriver(adapters, "@cumem/memory never reads a Buffer's members through the instance", (entry) => {
  let device: DeviceMemoryResource;
  let pinned: PinnedMemoryResource;
  let legacyPinned: LegacyPinnedMemoryResource;
  let managed: ManagedMemoryResource;
  let virtual: VirtualMemoryResource;
  let stream: Stream;

  beforeAll(() => {
    useDriver(entry.driver);
    device = new DeviceMemoryResource(0);
    pinned = new PinnedMemoryResource();
    legacyPinned = new LegacyPinnedMemoryResource();
    managed = new ManagedMemoryResource();
    virtual = new VirtualMemoryResource(0);
    stream = Stream.create(0);
  });
  afterAll(() => {
    stream.close();
    virtual.close();
  });

  /** A pool allocation made by the driver directly, for `Buffer.fromHandle(..., { mr: device })`. */
  const rawDeviceMemory = (bytes: number): bigint =>
    entry.driver.memAllocFromPoolAsync(bytes, device.handle, defaultStream(0).handle);

  const kinds: readonly Kind[] = [
    { what: 'a device pool buffer', traits: ['resource'], make: (s, n) => s.add(device.allocate(n)) },
    { what: 'a pinned pool buffer', traits: ['resource', 'host'], make: (s, n) => s.add(pinned.allocate(n)) },
    {
      what: 'a legacy pinned buffer',
      traits: ['resource', 'host'],
      make: (s, n) => s.add(legacyPinned.allocate(n)),
    },
    {
      what: 'a ManagedBuffer',
      traits: ['resource', 'host', 'managed'],
      make: (s, n) => s.add(managed.allocate(pages(n))),
    },
    {
      what: 'a VirtualMemoryResource buffer',
      traits: ['resource', 'virtual'],
      make: (s, n) => s.add(virtual.allocate(n)),
    },
    {
      what: 'a slice of a device buffer',
      traits: ['resource', 'derived'],
      make: (s, n) => s.add(s.add(device.allocate(n + 64)).slice(32, n)),
    },
    {
      what: 'a slice of a ManagedBuffer',
      traits: ['resource', 'host', 'managed', 'derived'],
      make: (s, n) => s.add(s.add(managed.allocate(2 * pages(n))).slice(pages(n), pages(n))),
    },
    {
      what: 'a slice of a VirtualMemoryResource buffer',
      traits: ['resource', 'derived'],
      make: (s, n) => s.add(s.add(virtual.allocate(n + 64)).slice(32, n)),
    },
    {
      what: 'a Buffer.fromHandle wrapper owned by a pinned Buffer',
      traits: ['host', 'derived'],
      make(s, n) {
        const owner = s.add(pinned.allocate(n));
        return s.add(Buffer.fromHandle(owner.handle, n, { owner }));
      },
    },
    {
      what: 'a ManagedBuffer.fromHandle wrapper owned by a ManagedBuffer',
      traits: ['host', 'managed', 'derived'],
      make(s, n) {
        const owner = s.add(managed.allocate(pages(n)));
        return s.add(ManagedBuffer.fromHandle(owner.handle, owner.size, { owner }));
      },
    },
    {
      what: 'a Buffer.fromHandle wrapper borrowing device memory',
      traits: [],
      make(s, n) {
        const memory = s.add(device.allocate(n));
        return s.add(Buffer.fromHandle(memory.handle, n));
      },
    },
    {
      what: 'a Buffer.fromHandle buffer owning pool memory through mr',
      traits: ['resource'],
      make: (s, n) => s.add(Buffer.fromHandle(rawDeviceMemory(n), n, { mr: device })),
    },
  ];

  const copies: Operation[] = hostForms.flatMap(([form, make]): Operation[] => [
    {
      what: `copyFrom(${form})`,
      run(buffer, scope) {
        const source = make(buffer.size);
        const data = patternBytes(buffer.size, 3);
        bytesOf(source).set(data);
        scope.act(() => viaPrototype(buffer).copyFrom(source));
        expect(download(buffer)).toEqual(data);
      },
    },
    {
      what: `copyTo(${form})`,
      run(buffer, scope) {
        const data = upload(buffer, 4);
        const target = make(buffer.size);
        expect(scope.act(() => viaPrototype(buffer).copyTo(target))).toBe(target);
        expect(bytesOf(target)).toEqual(data);
      },
    },
  ]);

  const operations: Operation[] = [
    {
      what: 'its public getters',
      run(buffer, scope) {
        const expected = publicFacts.map((name) => buffer[name]);
        const actual = scope.act(() => publicFacts.map((name) => viaPrototype(buffer)[name]));
        publicFacts.forEach((name, i) => {
          expect(actual[i], name).toBe(expected[i]);
        });
      },
    },
    {
      what: 'toString()',
      run(buffer, scope) {
        const expected = String(buffer);
        expect(scope.act(() => viaPrototype(buffer).toString())).toBe(expected);
      },
    },
    ...copies,
    {
      what: 'copyFrom(a device Buffer)',
      run(buffer, scope) {
        const source = scope.add(device.allocate(buffer.size));
        const data = upload(source, 5);
        scope.act(() => viaPrototype(buffer).copyFrom(source));
        expect(download(buffer)).toEqual(data);
      },
    },
    {
      what: 'copyTo(a device Buffer)',
      run(buffer, scope) {
        const data = upload(buffer, 6);
        const target = scope.add(device.allocate(buffer.size));
        scope.act(() => viaPrototype(buffer).copyTo(target));
        expect(download(target)).toEqual(data);
      },
    },
    {
      what: "a device Buffer's copyFrom(it) and copyTo(it), on a stream",
      run(buffer, scope) {
        const other = scope.add(device.allocate(buffer.size));
        const data = upload(buffer, 7);
        scope.act(() => viaPrototype(other).copyFrom(buffer, { stream }));
        stream.sync();
        expect(download(other)).toEqual(data);
        const next = upload(other, 8);
        scope.act(() => viaPrototype(other).copyTo(buffer, { stream }));
        stream.sync();
        expect(download(buffer)).toEqual(next);
      },
    },
    {
      what: 'copyTo() into a new buffer of its resource',
      needs: 'resource',
      run(buffer, scope) {
        const data = upload(buffer, 9);
        const copy = scope.add(scope.act(() => viaPrototype(buffer).copyTo({ stream })));
        stream.sync();
        expect(download(copy)).toEqual(data);
      },
    },
    {
      what: 'fill(a byte) and fill(a 4-byte pattern), on a stream',
      run(buffer, scope) {
        scope.act(() => viaPrototype(buffer).fill(0xab));
        expect(download(buffer).every((byte) => byte === 0xab)).toBe(true);
        const pattern = new Uint8Array([1, 2, 3, 4]);
        scope.act(() => viaPrototype(buffer).fill(pattern, { stream }));
        stream.sync();
        expect(download(buffer).subarray(0, 8)).toEqual(new Uint8Array([1, 2, 3, 4, 1, 2, 3, 4]));
      },
    },
    {
      what: 'slice(offset, length)',
      run(buffer, scope) {
        const data = upload(buffer, 10);
        const slice = scope.add(scope.act(() => viaPrototype(buffer).slice(16, 64)));
        expect(slice.handle).toBe(buffer.handle + 16n);
        expect(slice.size).toBe(64);
        expect(download(slice)).toEqual(data.subarray(16, 80));
      },
    },
    {
      what: 'hostView()',
      needs: 'host',
      run(buffer, scope) {
        const data = upload(buffer, 11);
        const view = scope.act(() => viaPrototype(buffer).hostView());
        expect(view).toEqual(data);
      },
    },
    {
      what: 'cudaArrayInterface',
      run(buffer, scope) {
        const face = scope.act(() => viaPrototype(buffer).cudaArrayInterface);
        expect(face.data).toEqual([buffer.handle, false]);
        expect(face.shape).toEqual([buffer.size]);
      },
    },
    {
      what: 'toDLPack()',
      run(buffer, scope) {
        const capsule = scope.closeLater(scope.act(() => viaPrototype(buffer).toDLPack()));
        expect(capsule.isClosed).toBe(false);
      },
    },
    {
      what: 'ipcDescriptor (refused: not memory of an IPC-enabled pool)',
      run(buffer, scope) {
        scope.act(() => expect(() => viaPrototype(buffer).ipcDescriptor).toThrow(TypeError));
      },
    },
    {
      what: 'copyRangesFromHost and copyRangesToHost',
      run(buffer, scope) {
        const data = patternBytes(buffer.size, 12);
        const ranges = [
          { offset: 0, bytes: data.slice(0, 64) },
          { offset: 128, bytes: data.slice(128, 192) },
        ];
        scope.act(() => copyRangesFromHost(buffer, ranges));
        const back = [
          { offset: 128, bytes: new Uint8Array(64) },
          { offset: 0, bytes: new Uint8Array(64) },
        ];
        scope.act(() => copyRangesToHost(buffer, back, { stream }));
        expect(back[0]?.bytes).toEqual(data.subarray(128, 192));
        expect(back[1]?.bytes).toEqual(data.subarray(0, 64));
      },
    },
    {
      what: 'copyRangesFromHost staged through a pinned Buffer',
      run(buffer, scope) {
        const staging = scope.add(pinned.allocate(buffer.size));
        const data = patternBytes(buffer.size, 13);
        scope.act(() => copyRangesFromHost(buffer, [{ offset: 0, bytes: data }], { staging, stream }));
        stream.sync();
        expect(download(buffer)).toEqual(data);
      },
    },
    {
      what: 'Buffer.fromHandle(..., { owner: it }), whose isClosed follows it',
      run(buffer, scope) {
        const Class = buffer instanceof ManagedBuffer ? ManagedBuffer : Buffer;
        const { handle, size: bytes } = buffer;
        const data = upload(buffer, 14);
        const wrapper = scope.add(scope.act(() => Class.fromHandle(handle, bytes, { owner: buffer })));
        expect(download(wrapper)).toEqual(data);
        expect(scope.act(() => viaPrototype(wrapper).isClosed)).toBe(false);
        scope.act(() => viaPrototype(buffer).close());
        expect(scope.act(() => viaPrototype(wrapper).isClosed)).toBe(true);
      },
    },
    {
      what: 'isClosed once the buffer it derives from is closed',
      needs: 'derived',
      run(buffer, scope) {
        const base = buffer.owner as Buffer;
        expect(base).toBeInstanceOf(Buffer);
        const closed = scope.act(() => {
          viaPrototype(base).close();
          return viaPrototype(buffer).isClosed;
        });
        expect(closed).toBe(true);
      },
    },
    {
      what: 'close()',
      run(buffer, scope) {
        scope.act(() => viaPrototype(buffer).close());
        expect(buffer.isClosed).toBe(true);
      },
    },
    {
      what: 'close({ stream })',
      run(buffer, scope) {
        scope.act(() => viaPrototype(buffer).close({ stream }));
        stream.sync();
        expect(buffer.isClosed).toBe(true);
      },
    },
    {
      what: '[Symbol.dispose]() (a `using` declaration)',
      run(buffer, scope) {
        scope.act(() => viaPrototype(buffer)[Symbol.dispose]());
        expect(buffer.isClosed).toBe(true);
      },
    },
    {
      what: 'close() after hostView(): the view is detached or kept alive, not read through',
      needs: 'host',
      run(buffer, scope) {
        const view = buffer.hostView();
        scope.act(() => viaPrototype(buffer).close());
        expect(buffer.isClosed).toBe(true);
        expect(view.byteLength === 0 || view.byteLength === buffer.size).toBe(true);
      },
    },
    // ManagedBuffer's advice and page moves.
    {
      what: 'readMostly (set, then read back)',
      needs: 'managed',
      run(buffer, scope) {
        const advised = viaPrototype(buffer as ManagedBuffer);
        scope.act(() => {
          advised.readMostly = true;
        });
        expect(scope.act(() => advised.readMostly)).toBe(true);
      },
    },
    {
      what: 'preferredLocation (set, read back, unset)',
      needs: 'managed',
      run(buffer, scope) {
        const advised = viaPrototype(buffer as ManagedBuffer);
        scope.act(() => {
          advised.preferredLocation = new Device(0);
        });
        expect(scope.act(() => advised.preferredLocation)).toEqual(new Device(0));
        scope.act(() => {
          advised.preferredLocation = null;
        });
        expect(scope.act(() => advised.preferredLocation)).toBeNull();
      },
    },
    {
      what: "accessedBy (set, and the view's has / size / delete / add / clear)",
      needs: 'managed',
      run(buffer, scope) {
        const advised = viaPrototype(buffer as ManagedBuffer);
        scope.act(() => {
          advised.accessedBy = [new Device(0)];
        });
        const view = scope.act(() => advised.accessedBy);
        expect(scope.act(() => view.has(new Device(0)))).toBe(true);
        expect(scope.act(() => view.size)).toBe(1);
        expect(scope.act(() => view.delete(new Device(0)))).toBe(true);
        scope.act(() => view.add(new Device(0)));
        expect(scope.act(() => [...view])).toEqual([new Device(0)]);
        scope.act(() => view.clear());
        expect(view.size).toBe(0);
      },
    },
    {
      what: 'prefetch(a device) and prefetch(the host, { stream })',
      needs: 'managed',
      run(buffer, scope) {
        const data = upload(buffer, 15);
        scope.act(() => viaPrototype(buffer as ManagedBuffer).prefetch(new Device(0)));
        scope.act(() => viaPrototype(buffer as ManagedBuffer).prefetch(new Host(), { stream }));
        stream.sync();
        expect(download(buffer)).toEqual(data);
      },
    },
    {
      what: 'discard() (NotSupportedError without the CUDA 13 batch entry points)',
      needs: 'managed',
      run(buffer, scope) {
        const discard = () => viaPrototype(buffer as ManagedBuffer).discard({ stream });
        if (!entry.driver.capabilities.batchPrefetchDiscard)
          scope.act(() => expect(discard).toThrow(NotSupportedError));
        else scope.act(discard);
        stream.sync();
        expect(buffer.isClosed).toBe(false);
      },
    },
    {
      what: 'discardPrefetch(a device)',
      needs: 'managed',
      run(buffer, scope) {
        scope.act(() => viaPrototype(buffer as ManagedBuffer).discardPrefetch(new Device(0)));
        buffer.fill(2);
        expect(download(buffer).every((byte) => byte === 2)).toBe(true);
      },
    },
    // VirtualMemoryResource's operations on its buffers (not slices).
    {
      what: 'VirtualMemoryResource.modifyAllocation(it, a larger size)',
      needs: 'virtual',
      run(buffer, scope) {
        const data = upload(buffer, 16);
        const grown = 2 * virtual.granularity;
        const result = scope.act(() => virtual.modifyAllocation(buffer, grown));
        if (result.moved) scope.add(result.buffer);
        expect(result.buffer.size).toBe(grown);
        expect(download(result.buffer.slice(0, data.length))).toEqual(data);
      },
    },
  ];

  for (const kind of kinds) {
    describe(kind.what, () => {
      for (const op of operations) {
        if (op.needs !== undefined && !kind.traits.includes(op.needs)) continue;
        it(op.what, () => {
          using scope = new ShadowScope();
          op.run(kind.make(scope, size), scope);
        });
      }
    });
  }

  // A buffer dropped without close() gets its finalizer when its batch is flushed
  // (buffer-release.ts): what the finalizer frees is taken from the buffer then.
  describe('a buffer dropped without close()', () => {
    const owning: readonly [string, (bytes: number) => Buffer][] = [
      ['a device pool buffer', (n) => device.allocate(n)],
      ['a pinned pool buffer', (n) => pinned.allocate(n)],
      ['a ManagedBuffer', (n) => managed.allocate(n)],
      ['a VirtualMemoryResource buffer', (n) => virtual.allocate(n)],
      [
        'a Buffer.fromHandle buffer owning pool memory through mr',
        (n) => Buffer.fromHandle(rawDeviceMemory(n), n, { mr: device }),
      ],
    ];

    it.each(owning)('%s is registered and released without reading its members', async (_what, make) => {
      const reads: string[] = [];
      const released = finalizerReleases().count;
      (() => {
        shadowEveryMember(make(size), reads);
        flushDeferredReleases();
      })();
      expect(reads).toEqual([]);
      expect(await collectGarbageUntil(() => finalizerReleases().count > released)).toBe(true);
      expect(reads).toEqual([]);
    });
  });
});
