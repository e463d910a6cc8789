// @cumem/compute's launch reads a Buffer argument's facts (address, closed state, device access,
// reachability) and notes its use by a kernel through @cumem/memory's private-state readers,
// never through property lookup on the instance: an own property defined on a Buffer over a
// member of its class changes nothing a launch does (issue 21). Every buffer of a test is
// shadowed member by member (see @cumem/test-support's shadowEveryMember) while each launch
// runs, and each launch must read no shadow and still write where it should. Buffers are
// extensible (issue 26): a test that fails here names a read cumem still makes through a
// Buffer's members.
import {
  Buffer,
  type DeviceMemoryResource,
  ManagedMemoryResource,
  ownerMemoryBuffer,
  PinnedMemoryResource,
  type Stream,
  VirtualMemoryResource,
} from '@cumem/memory';
import { expectEvery, ShadowScope, viaPrototype } from '@cumem/test-support';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, useDeviceZero } from '../test/support.js';
import { float32, type KernelArgument, LaunchConfig, launch, ObjectCode, uint32 } from './index.js';

interface Kind {
  readonly what: string;
  /** A buffer of `size` bytes; it and the buffers it derives from are added to `scope`. */
  make(scope: ShadowScope, size: number): Buffer;
}

const size = 256;
const elements = size / 4;

describeEachDriver(
  adapters,
  "launch never reads a Buffer argument's members through the instance",
  (entry) => {
    let pool: DeviceMemoryResource;
    let stream: Stream;
    let code: ObjectCode;
    let pinned: PinnedMemoryResource;
    let managed: ManagedMemoryResource;
    let virtual: VirtualMemoryResource;

    beforeAll(() => {
      ({ pool, stream } = useDeviceZero(entry.driver));
      code = ObjectCode.fromPTX(referenceKernelsPTX);
      pinned = new PinnedMemoryResource();
      managed = new ManagedMemoryResource();
      virtual = new VirtualMemoryResource(0);
    });
    afterAll(() => {
      code.close();
      stream.close();
      virtual.close();
    });

    const kinds: readonly Kind[] = [
      { what: 'a device pool buffer', make: (s, n) => s.add(pool.allocate(n)) },
      { what: 'a pinned pool buffer', make: (s, n) => s.add(pinned.allocate(n)) },
      { what: 'a ManagedBuffer', make: (s, n) => s.add(managed.allocate(n)) },
      { what: 'a VirtualMemoryResource buffer', make: (s, n) => s.add(virtual.allocate(n)) },
      {
        what: 'a slice of a device buffer',
        make: (s, n) => s.add(s.add(pool.allocate(n + 64)).slice(32, n)),
      },
      {
        what: 'a Buffer.fromHandle wrapper owned by a device Buffer',
        make(s, n) {
          const owner = s.add(pool.allocate(n));
          return s.add(Buffer.fromHandle(owner.handle, n, { owner }));
        },
      },
    ];

    /** The forms a launch takes `buffer` in: the Buffer, a strided view of it, an object holding it. */
    const forms: readonly [string, (buffer: Buffer) => KernelArgument][] = [
      ['the Buffer itself', (buffer) => buffer],
      [
        'a StridedMemoryView.fromBuffer of it',
        (buffer) =>
          StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([elements], 4), { dtype: 'float32' }),
      ],
      [
        'an object holding it under ownerMemoryBuffer (as a CudaBuffer)',
        (buffer) => ({ [ownerMemoryBuffer]: buffer, address: buffer.handle, isClosed: false }),
      ],
    ];

    /** Fills `argument` (the memory of `buffer`) with 2.5 by fill_f32 on the test's stream. */
    function fill(argument: KernelArgument): void {
      const config = new LaunchConfig({ grid: 1, block: elements });
      launch(stream, config, code.getKernel('fill_f32'), argument, float32(2.5), uint32(elements));
    }

    for (const kind of kinds) {
      describe(kind.what, () => {
        for (const [form, argumentOf] of forms) {
          it(`is passed as ${form}`, () => {
            using scope = new ShadowScope();
            const buffer = kind.make(scope, size);
            buffer.fill(0);
            const argument = argumentOf(buffer);
            scope.act(() => fill(argument));
            stream.sync();
            expectEvery(buffer, Float32Array, 2.5);
          });
        }

        it('is closed right after a launch that used it (the free waits for the kernel)', () => {
          using scope = new ShadowScope();
          const buffer = kind.make(scope, size);
          const config = new LaunchConfig({ grid: 1, block: 1 });
          scope.act(() => launch(stream, config, code.getKernel('write_u32'), buffer, uint32(55)));
          scope.act(() => viaPrototype(buffer).close());
          stream.sync();
          expect(buffer.isClosed).toBe(true);
        });
      });
    }
  },
);
