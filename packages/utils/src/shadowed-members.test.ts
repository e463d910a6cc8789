// @cumem/utils reads a Buffer's facts (pointer, size, owner chain, closed state, device) through
// @cumem/memory's private-state readers, never through property lookup on the instance: an own
// property defined on a Buffer over a member of its class changes nothing utils does (issue 21).
// Every buffer of a test is shadowed member by member (see @cumem/test-support's
// shadowEveryMember) while each operation runs, and each operation must read no shadow and still
// do its work. Buffers are extensible (issue 26): a test that fails here
// names a read cumem still makes through a Buffer's members.
import { Device, Host, NotSupportedError } from '@cumem/core-types';
import {
  Buffer,
  DeviceMemoryResource,
  type ManagedBuffer,
  ManagedMemoryResource,
  PinnedMemoryResource,
  Stream,
  useDriver,
  VirtualMemoryResource,
} from '@cumem/memory';
import { download, ShadowScope, upload, viaPrototype } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, lastPrefetch, strictTypeError } from '../test/support.js';
import { copyBatch } from './batch/copy-batch.js';
import { advise } from './managed/managed-advise.js';
import { discardBatch, discardPrefetchBatch, prefetchBatch } from './managed/managed-batch.js';
import { discard, discardPrefetch, prefetch } from './managed/managed-operations.js';
import { StridedLayout } from './strided/strided-layout.js';
import { StridedMemoryView } from './strided/strided-memory-view.js';

interface Kind {
  readonly what: string;
  readonly managed: boolean;
  /** A buffer of `size` bytes; it and the buffers it derives from are added to `scope`. */
  make(scope: ShadowScope, size: number): Buffer;
}

interface Operation {
  readonly what: string;
  /** Only for ManagedBuffers. */
  readonly managedOnly?: boolean;
  /** Runs the operation on `buffer` inside `scope.act`, then checks its effect. */
  run(buffer: Buffer, scope: ShadowScope): void;
}

const size = 4096;
/**
 * Managed buffers are two whole 64 KiB pages (whatever size is asked), slices of them start on
 * one: real drivers round advice and prefetches to pages, and discards are kept to such ranges.
 */
const managedSize = 2 << 16;
const device0 = new Device(0);

/** `buffer` as a dense float32 vector. */
const float32Layout = (buffer: Buffer) => new StridedLayout([buffer.size / 4], null, 4);

describeEachDriver(adapters, "@cumem/utils never reads a Buffer's members through the instance", (entry) => {
  let device: DeviceMemoryResource;
  let pinned: PinnedMemoryResource;
  let managed: ManagedMemoryResource;
  let virtual: VirtualMemoryResource;
  let stream: Stream;

  beforeAll(() => {
    useDriver(entry.driver);
    device = new DeviceMemoryResource(0);
    pinned = new PinnedMemoryResource();
    managed = new ManagedMemoryResource();
    virtual = new VirtualMemoryResource(0);
    stream = Stream.create(0);
  });
  afterAll(() => {
    stream.close();
    virtual.close();
  });

  const kinds: readonly Kind[] = [
    { what: 'a device pool buffer', managed: false, make: (s, n) => s.add(device.allocate(n)) },
    { what: 'a pinned pool buffer', managed: false, make: (s, n) => s.add(pinned.allocate(n)) },
    { what: 'a VirtualMemoryResource buffer', managed: false, make: (s, n) => s.add(virtual.allocate(n)) },
    { what: 'a ManagedBuffer', managed: true, make: (s) => s.add(managed.allocate(managedSize)) },
    {
      what: 'a slice of a device buffer',
      managed: false,
      make: (s, n) => s.add(s.add(device.allocate(2 * n)).slice(n / 2, n)),
    },
    {
      what: 'a slice of a ManagedBuffer',
      managed: true,
      make: (s) => s.add(s.add(managed.allocate(2 * managedSize)).slice(managedSize, managedSize)),
    },
    {
      what: 'a Buffer.fromHandle wrapper owned by a device Buffer',
      managed: false,
      make(s, n) {
        const owner = s.add(device.allocate(n));
        return s.add(Buffer.fromHandle(owner.handle, n, { owner }));
      },
    },
  ];

  const copies: Operation[] = (['loop', 'batch'] as const).flatMap((strategy): Operation[] => [
    {
      what: `copyBatch with it as dst, then as src of 64 bytes (strategy ${strategy})`,
      run(buffer, scope) {
        const other = scope.add(device.allocate(buffer.size));
        const data = upload(other, 1);
        scope.act(() => copyBatch(stream, [buffer], [other], undefined, { strategy }));
        stream.sync();
        expect(download(buffer)).toEqual(data);
        const next = upload(buffer, 2);
        scope.act(() => copyBatch(stream, [other], [buffer], [64], { strategy }));
        stream.sync();
        expect(download(other).subarray(0, 64)).toEqual(next.subarray(0, 64));
      },
    },
    {
      what: `copyBatch between four slices of it and of a device buffer (strategy ${strategy})`,
      run(buffer, scope) {
        const other = scope.add(device.allocate(buffer.size));
        const data = upload(other, 3);
        const quarter = buffer.size / 4;
        const quarters = (of: Buffer) => [0, 1, 2, 3].map((i) => scope.add(of.slice(i * quarter, quarter)));
        const [dsts, srcs] = [quarters(buffer), quarters(other).reverse()];
        scope.act(() => copyBatch(stream, dsts, srcs, quarter, { strategy }));
        stream.sync();
        const bytes = download(buffer);
        for (let i = 0; i < 4; i++) {
          const from = (3 - i) * quarter;
          expect(bytes.subarray(i * quarter, (i + 1) * quarter)).toEqual(data.subarray(from, from + quarter));
        }
      },
    },
  ]);

  const operations: Operation[] = [
    ...copies,
    {
      what: 'StridedMemoryView.fromBuffer, and its ptr, cudaArrayInterface and strided copies',
      run(buffer, scope) {
        const values = new Float32Array(buffer.size / 4).map((_, i) => i / 2);
        const layout = float32Layout(buffer);
        const view = scope.act(() => StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32' }));
        expect(view.exportingObject).toBe(buffer);
        expect(scope.act(() => view.ptr)).toBe(buffer.handle);
        expect(scope.act(() => view.cudaArrayInterface.data[0])).toBe(buffer.handle);
        scope.act(() => view.copyFrom(StridedMemoryView.fromHost(values), { stream }));
        stream.sync();
        expect(new Float32Array(download(buffer).buffer)).toEqual(values);
        const back = new Float32Array(values.length);
        // Every other element of the buffer, through a strided view of it.
        const evens = new StridedLayout([values.length / 2], [2], 4);
        scope.act(() =>
          view.view(evens).copyTo(StridedMemoryView.fromHost(back.subarray(0, values.length / 2))),
        );
        expect(back.subarray(0, values.length / 2)).toEqual(values.filter((_, i) => i % 2 === 0));
      },
    },
    {
      what: 'StridedMemoryView.from(it)',
      run(buffer, scope) {
        const view = scope.closeLater(scope.act(() => StridedMemoryView.from(buffer, { stream: -1 })));
        expect(view.ptr).toBe(buffer.handle);
        expect(view.shape).toEqual([buffer.size]);
      },
    },
    {
      what: 'DLPack: its toDLPack() imported by StridedMemoryView.fromDLPack, and a view of it exported',
      run(buffer, scope) {
        const data = upload(buffer, 4);
        const imported = scope.closeLater(
          scope.act(() => StridedMemoryView.fromDLPack(viaPrototype(buffer).toDLPack())),
        );
        expect(imported.ptr).toBe(buffer.handle);
        const back = new Uint8Array(buffer.size);
        imported.copyTo(StridedMemoryView.fromHost(back));
        expect(back).toEqual(data);
        const view = StridedMemoryView.fromBuffer(buffer, float32Layout(buffer));
        const capsule = scope.closeLater(scope.act(() => view.toDLPack()));
        expect(capsule.isClosed).toBe(false);
      },
    },
    {
      what: 'tensor IPC descriptor export (refused: not memory of an IPC-enabled pool)',
      run(buffer, scope) {
        const view = StridedMemoryView.fromBuffer(buffer, float32Layout(buffer));
        scope.act(() => expect(() => view.toIpcDescriptor()).toThrow(strictTypeError));
      },
    },
    // The managed-memory functions.
    {
      what: 'prefetch(it) and prefetch([it, another], locations, { stream })',
      managedOnly: true,
      run(buffer, scope) {
        const other = scope.add(managed.allocate(buffer.size));
        scope.act(() => prefetch(buffer as ManagedBuffer, device0));
        expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
        const both = [buffer, other] as ManagedBuffer[];
        scope.act(() => prefetch(both, [new Host(), device0], { stream }));
        stream.sync();
        expect(lastPrefetch(entry.driver, buffer)).toBe('host');
      },
    },
    {
      what: 'discard(it) (NotSupportedError without the CUDA 13 batch entry points) and discardPrefetch(it)',
      managedOnly: true,
      run(buffer, scope) {
        const managedBuffer = buffer as ManagedBuffer;
        if (entry.driver.capabilities.batchPrefetchDiscard) scope.act(() => discard(managedBuffer));
        else scope.act(() => expect(() => discard(managedBuffer)).toThrow(NotSupportedError));
        scope.act(() => discardPrefetch(managedBuffer, device0));
        buffer.fill(5);
        expect(download(buffer).every((byte) => byte === 5)).toBe(true);
      },
    },
    {
      what: 'advise(it) and advise([it])',
      managedOnly: true,
      run(buffer, scope) {
        const managedBuffer = buffer as ManagedBuffer;
        scope.act(() => advise(managedBuffer, 'setReadMostly'));
        expect(managedBuffer.readMostly).toBe(true);
        scope.act(() => advise([managedBuffer], 'setPreferredLocation', device0));
        expect(managedBuffer.preferredLocation).toEqual(device0);
        scope.act(() => advise([managedBuffer], 'setAccessedBy', device0));
        expect([...managedBuffer.accessedBy]).toEqual([device0]);
      },
    },
    {
      what: 'prefetchBatch, discardBatch and discardPrefetchBatch of its two halves (one range coalesced)',
      managedOnly: true,
      run(buffer, scope) {
        const half = buffer.size / 2;
        const buffers = [scope.add(buffer.slice(0, half)), scope.add(buffer.slice(half, half))];
        scope.act(() => prefetchBatch(stream, buffers, new Host()));
        stream.sync();
        expect(lastPrefetch(entry.driver, buffer)).toBe('host');
        if (entry.driver.capabilities.batchPrefetchDiscard) scope.act(() => discardBatch(stream, buffers));
        scope.act(() => discardPrefetchBatch(stream, buffers, device0));
        stream.sync();
        expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
      },
    },
  ];

  for (const kind of kinds) {
    describe(kind.what, () => {
      for (const op of operations) {
        if (op.managedOnly && !kind.managed) continue;
        it(op.what, () => {
          using scope = new ShadowScope();
          op.run(kind.make(scope, size), scope);
        });
      }
    });
  }
});
