// @cumem/interop-arrow reads a @cumem/memory Buffer's facts (address, size, device, closed state,
// host access) through @cumem/memory's private-state readers, never through property lookup on
// the instance: an own property defined on a Buffer over a member of its class changes nothing
// interop-arrow does (issue 21). That holds for Buffers a program hands in (as a view's memory,
// as host data) and for those interop-arrow's objects hold and expose (`ownerMemoryBuffer`).
// Every such buffer is shadowed member by member (see @cumem/test-support's shadowEveryMember)
// while each operation runs, and each operation must read no shadow and still do its work.
// Buffers are extensible (issue 26): a test that fails here
// names a read cumem still makes through a Buffer's members.
import {
  Buffer,
  DeviceMemoryResource,
  ManagedMemoryResource,
  ownerMemoryBuffer,
  PinnedMemoryResource,
  VirtualMemoryResource,
} from '@cumem/memory';
import { ShadowScope, upload, viaPrototype } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { tableFromArrays } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, contextWith, patternBytes } from '../test/support.js';
import { BufferReader } from './buffer/buffer-reader.js';
import { BufferWriter } from './buffer/buffer-writer.js';
import { CudaBuffer } from './buffer/cuda-buffer.js';
import type { Context } from './context/context.js';
import { newHostBuffer } from './host/host-buffer.js';
import { tableFromDevice, tableToDevice } from './table/device-table.js';

interface Kind {
  readonly what: string;
  readonly host: boolean;
  /** A buffer of `size` bytes; it and the buffers it derives from are added to `scope`. */
  make(scope: ShadowScope, size: number): Buffer;
}

interface Operation {
  readonly what: string;
  /** Only for host-accessible buffers (interop-arrow's host data). */
  readonly hostOnly?: boolean;
  /** Runs the operation with `buffer` inside `scope.act`, then checks its effect. */
  run(buffer: Buffer, scope: ShadowScope): void;
}

const size = 256;

describeEachDriver(
  adapters,
  "@cumem/interop-arrow never reads a memory Buffer's members through the instance",
  (entry) => {
    let context: Context;
    let device: DeviceMemoryResource;
    let pinned: PinnedMemoryResource;
    let managed: ManagedMemoryResource;
    let virtual: VirtualMemoryResource;

    beforeAll(() => {
      context = contextWith(entry.driver);
      device = new DeviceMemoryResource(0);
      pinned = new PinnedMemoryResource();
      managed = new ManagedMemoryResource();
      virtual = new VirtualMemoryResource(0);
    });
    afterAll(() => virtual.close());

    const kinds: readonly Kind[] = [
      { what: 'a device pool buffer', host: false, make: (s, n) => s.add(device.allocate(n)) },
      { what: 'a pinned pool buffer', host: true, make: (s, n) => s.add(pinned.allocate(n)) },
      { what: 'a ManagedBuffer', host: true, make: (s, n) => s.add(managed.allocate(n)) },
      { what: 'a VirtualMemoryResource buffer', host: false, make: (s, n) => s.add(virtual.allocate(n)) },
      {
        what: 'a slice of a device buffer',
        host: false,
        make: (s, n) => s.add(s.add(device.allocate(n + 64)).slice(32, n)),
      },
      {
        what: 'a slice of a pinned buffer',
        host: true,
        make: (s, n) => s.add(s.add(pinned.allocate(n + 64)).slice(32, n)),
      },
      {
        what: 'a Buffer.fromHandle wrapper owned by a device Buffer',
        host: false,
        make(s, n) {
          const owner = s.add(device.allocate(n));
          return s.add(Buffer.fromHandle(owner.handle, n, { owner }));
        },
      },
    ];

    /** The CudaBuffer view of `buffer` that `view` makes: its memory, its close following the Buffer's. */
    function viewOperation(what: string, view: (buffer: Buffer) => CudaBuffer): Operation {
      return {
        what: `${what}, whose isClosed follows it`,
        run(buffer, scope) {
          const data = upload(buffer, 1);
          const cuda = scope.closeLater(scope.act(() => view(buffer)));
          expect(cuda.address).toBe(buffer.handle);
          expect(cuda.size).toBe(buffer.size);
          expect(cuda.toBytes()).toEqual(data);
          expect(scope.act(() => cuda.isClosed)).toBe(false);
          scope.act(() => viaPrototype(buffer).close());
          expect(scope.act(() => cuda.isClosed)).toBe(true);
        },
      };
    }

    const operations: Operation[] = [
      viewOperation('CudaBuffer.fromMemoryBuffer(it)', (buffer) => CudaBuffer.fromMemoryBuffer(buffer)),
      viewOperation('CudaBuffer.fromBuffer(it)', (buffer) => CudaBuffer.fromBuffer(buffer)),
      viewOperation('Context.bufferFromObject(it)', (buffer) => context.bufferFromObject(buffer)),
      // A host-accessible Buffer is host data.
      {
        what: 'copyFromHost(it) and copyToHost({ buf: it })',
        hostOnly: true,
        run(buffer, scope) {
          const data = upload(buffer, 2);
          const cuda = scope.closeLater(context.newBuffer(buffer.size));
          expect(scope.act(() => cuda.copyFromHost(buffer))).toBe(buffer.size);
          expect(cuda.toBytes()).toEqual(data);
          cuda.copyFromHost(patternBytes(buffer.size, 3));
          expect(scope.act(() => cuda.copyToHost({ buf: buffer }).byteLength)).toBe(buffer.size);
          expect(buffer.hostView()).toEqual(patternBytes(buffer.size, 3));
        },
      },
      {
        what: 'equals(it) and Context.bufferFromData(it)',
        hostOnly: true,
        run(buffer, scope) {
          const data = upload(buffer, 4);
          const copy = scope.closeLater(scope.act(() => context.bufferFromData(buffer)));
          expect(copy.toBytes()).toEqual(data);
          expect(scope.act(() => copy.equals(buffer))).toBe(true);
        },
      },
      {
        what: 'BufferWriter.write(it) and BufferReader.readInto(it)',
        hostOnly: true,
        run(buffer, scope) {
          const data = upload(buffer, 5);
          const cuda = scope.closeLater(context.newBuffer(buffer.size));
          const writer = new BufferWriter(cuda);
          expect(scope.act(() => writer.write(buffer))).toBe(buffer.size);
          writer.flush();
          expect(cuda.toBytes()).toEqual(data);
          cuda.copyFromHost(patternBytes(buffer.size, 6));
          expect(scope.act(() => new BufferReader(cuda).readInto(buffer))).toBe(buffer.size);
          expect(buffer.hostView()).toEqual(patternBytes(buffer.size, 6));
        },
      },
    ];

    describe('a @cumem/memory Buffer handed in', () => {
      for (const kind of kinds) {
        describe(kind.what, () => {
          for (const op of operations) {
            if (op.hostOnly && !kind.host) continue;
            it(op.what, () => {
              using scope = new ShadowScope();
              op.run(kind.make(scope, size), scope);
            });
          }
        });
      }
    });

    describe('the memory Buffer of a CudaBuffer or HostBuffer (ownerMemoryBuffer)', () => {
      /** A new CudaBuffer of `bytes`, closed at the end, its memory Buffer shadowed. */
      function deviceData(scope: ShadowScope, bytes: Uint8Array): CudaBuffer {
        const cuda = scope.closeLater(context.bufferFromData(bytes));
        scope.add(cuda[ownerMemoryBuffer]);
        return cuda;
      }

      it('CudaBuffer copies, slice, cudaArrayInterface and close', () => {
        using scope = new ShadowScope();
        const data = patternBytes(size, 7);
        const cuda = deviceData(scope, new Uint8Array(size));
        const other = deviceData(scope, data);
        expect(scope.act(() => cuda.copyFromDevice(other))).toBe(size);
        expect(scope.act(() => cuda.copyToHost({ output: 'pageable' }))).toEqual(data);
        expect(scope.act(() => cuda.copyFromHost(patternBytes(64, 8), { position: 64 }))).toBe(64);
        const slice = scope.act(() => cuda.slice(64, 64));
        expect(slice.toBytes()).toEqual(patternBytes(64, 8));
        expect(scope.act(() => cuda.cudaArrayInterface.data[0])).toBe(cuda.address);
        scope.act(() => cuda.close());
        expect(slice.isClosed).toBe(true);
      });

      it('toMemoryBuffer(), a CudaBuffer view of it and Context.bufferFromData(a CudaBuffer)', () => {
        using scope = new ShadowScope();
        const data = patternBytes(size, 9);
        const cuda = deviceData(scope, data);
        const memory = scope.add(scope.act(() => cuda.toMemoryBuffer()));
        const view = scope.closeLater(scope.act(() => CudaBuffer.fromBuffer(memory)));
        expect(view.toBytes()).toEqual(data);
        const copy = scope.closeLater(
          scope.act(() => context.bufferFromData(cuda, { offset: 16, size: 32 })),
        );
        expect(copy.toBytes()).toEqual(data.subarray(16, 48));
        scope.act(() => cuda.close());
        expect(view.isClosed).toBe(true);
      });

      it('HostBuffer bytes, toBytes and close', () => {
        using scope = new ShadowScope();
        const host = scope.closeLater(newHostBuffer(size));
        const memory = scope.add(host[ownerMemoryBuffer] as Buffer);
        const data = patternBytes(size, 10);
        scope.act(() => host.bytes.set(data));
        expect(scope.act(() => host.toBytes())).toEqual(data);
        expect(memory.hostView()).toEqual(data);
        scope.act(() => host.close());
        expect(host.isClosed).toBe(true);
      });

      it('tableToDevice staged through a HostBuffer, tableFromDevice into a HostBuffer', () => {
        using scope = new ShadowScope();
        const table = tableFromArrays({
          ints: Int32Array.from({ length: 100 }, (_, i) => i * 3),
          floats: Float64Array.from({ length: 100 }, (_, i) => i / 4),
        });
        const staging = scope.closeLater(newHostBuffer(1 << 16));
        scope.add(staging[ownerMemoryBuffer] as Buffer);
        const onDevice = scope.closeLater(scope.act(() => tableToDevice(table, context, { staging })));
        scope.add(onDevice.buffer[ownerMemoryBuffer]);
        const output = scope.closeLater(newHostBuffer(onDevice.byteLength));
        scope.add(output[ownerMemoryBuffer] as Buffer);
        const back = scope.act(() => tableFromDevice(onDevice, { output }));
        expect(back.numRows).toBe(100);
        expect([...back.getChild('ints')!]).toEqual([...table.getChild('ints')!]);
        expect([...back.getChild('floats')!]).toEqual([...table.getChild('floats')!]);
      });
    });
  },
);
