/**
 * cuda.core's object-protocol tests (equality, hashing, weak references, repr, closed state),
 * translated case by case for the objects of `@cumem/memory`: Device, Stream, Event, Buffer and
 * a memory resource. The compute objects (LaunchConfig, ObjectCode, Kernel, Program) have their
 * own translation of this file in packages/compute/test/upstream/.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_object_protocols.py`, as read at commit
 * 0370d07561b75af50e0319738e807abd605cdc53. Each case title starts with the upstream function name
 * and its parametrization (upstream's fixture name without `sample_`).
 *
 * How cuda.core's Python maps here:
 * - `==` / `hash()` / dict and set keys -> identity (`===`), `Map` and `Set`, which key by
 *   identity. cumem has no value equality: the same driver object is the same JS object where
 *   cumem hands it out twice (interned `Device`, `defaultStream()`, `buffer.memoryResource`), and
 *   a second wrapper of the same memory (`Buffer.fromHandle`) is a different key with the same
 *   `handle` and `size`.
 * - `weakref.ref`, `WeakValueDictionary`, `WeakKeyDictionary`, `WeakSet` -> `WeakRef`, a `Map` of
 *   `WeakRef`s, `WeakMap`, `WeakSet`. Holding an object weakly cannot fail in JS, so each case
 *   also checks what makes the weak reference useful: once the test drops the object, it is
 *   collected (nothing in cumem keeps a wrapper alive), except the interned Device, which stays.
 * - `repr()` -> `String()` (`Kind(key: value, ...)`) and `util.inspect` (`Kind { ... }`), cumem's
 *   one form for every public class (CONTRIBUTING.md). cumem's `Device` is identity only (API.md),
 *   so it shows its ordinal where cuda.core also shows the name.
 * - `close()` then `.handle`: cuda.core lets a closed object's handle be read; so does cumem's
 *   Buffer, while a closed Stream or Event throws `CudaStateError` naming the object (API.md:
 *   "Using a closed object throws CudaStateError"), which the closeable case checks instead. `bool(obj)` after close has no JS counterpart (every
 *   object is truthy).
 *
 * Not ported:
 * - every parametrization over `sample_context*`: cumem has no Context object (one primary
 *   context per device, made current by cumem itself).
 * - every parametrization over graph objects (GraphDefinition, GraphCondition, the node kinds) and
 *   test_graph_object_validity_uses_named_state: cumem has no CUDA graphs yet (planned, API.md 0.4).
 * - test_equality_same_handle[stream]: `Stream.fromHandle` is planned for 0.4 (API.md), not built.
 * - test_equality_basic, test_no_cross_type_equality: reflexive `===`, and no two distinct
 *   objects being `===`, are guarantees of the language; a case could not fail.
 * - test_pickle_roundtrip: pickling is a Python concern (the IPC descriptors' JSON round trip is
 *   translated from memory_ipc/test_serialize.py).
 */
import { inspect } from 'node:util';
import { CudaStateError } from '@cumem/core-types';
import {
  Buffer,
  Device,
  DeviceMemoryResource,
  defaultStream,
  Event,
  type MemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { describeEachDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { collectGarbage } from '../garbage.js';
import { needsPools } from './upstream-gates.js';

/** upstream's `POOL_SIZE`: an owned pool's maximum size. */
const POOL_SIZE = 2 * 1024 * 1024;

/** One kind of object upstream's fixtures give, made fresh on device 0 (the caller closes it). */
interface Sample {
  readonly name: string;
  readonly make: () => object;
  readonly close: (value: object) => void;
}

// A sample's objects are closed through the kind's own close(); Device has none (interned).
const closeIt = (value: object) => (value as { close(): void }).close();

const samples: readonly Sample[] = [
  { name: 'device', make: () => new Device(0), close: () => {} },
  { name: 'stream', make: () => Stream.create(0), close: closeIt },
  { name: 'event', make: () => Event.create(0), close: closeIt },
  { name: 'buffer', make: () => new DeviceMemoryResource(0).allocate(64), close: closeIt },
  {
    name: 'memory_resource',
    make: () => new DeviceMemoryResource(0, { maxSize: POOL_SIZE }),
    close: closeIt,
  },
];

/** The samples that are not interned: a dropped one must be collectable. */
const droppable = samples.filter((sample) => sample.name !== 'device');

/**
 * Makes a sample, hands it to `keep` (which holds it weakly) and drops it; then collects garbage
 * until the object is gone. Returns whether it was collected and what `keep` left to inspect.
 */
async function dropAndCollect<T>(
  sample: Sample,
  keep: (value: object) => T,
): Promise<{ collected: boolean; kept: T }> {
  let ref: WeakRef<object> | undefined;
  let kept: T | undefined;
  // In a function of its own, so that no local of this frame holds the object.
  (() => {
    const value = sample.make();
    ref = new WeakRef(value);
    kept = keep(value);
  })();
  await collectGarbage(
    50,
    () => ref?.deref() === undefined,
    () => defaultStream(0).sync(),
  );
  return { collected: ref?.deref() === undefined, kept: kept as T };
}

describeEachDriver(
  adapters,
  'cuda.core test_object_protocols.py (memory objects)',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    describe('closed state', () => {
      // A closed Buffer's handle stays readable (as cuda.core's; the memory README names it when
      // warning about `deallocate`); a closed Stream's or Event's is a CudaStateError (API.md).
      const handleAfterClose = { stream: 'refused', event: 'refused', buffer: 'kept' } as const;
      for (const name of ['stream', 'event', 'buffer'] as const) {
        const sample = samples.find((s) => s.name === name) as Sample;
        const title =
          handleAfterClose[name] === 'kept' ? 'its handle stays readable' : 'its handle is a CudaStateError';
        it(`test_closeable_object_state_and_safe_inspection[${name}]: close is idempotent, isClosed says so, describing stays safe, ${title}`, () => {
          const value = sample.make() as { isClosed: boolean; handle: bigint; close(): void };
          expect(value.isClosed).toBe(false);
          const handle = value.handle;
          expect(typeof handle).toBe('bigint');
          value.close();
          expect(value.isClosed).toBe(true);
          expect(String(value)).toMatch(/closed: true\)$/);
          expect(inspect(value)).toMatch(/closed: true\s*\}$/);
          if (handleAfterClose[name] === 'kept') expect(value.handle).toBe(handle);
          else expect(() => value.handle).toThrow(CudaStateError);
          value.close();
          expect(value.isClosed).toBe(true);
        });
      }
    });

    describe('weak references', () => {
      it('test_weakref_supported[device]: a WeakRef holds the interned Device, which collection keeps', async () => {
        const ref = new WeakRef(new Device(0));
        expect(ref.deref()).toBe(new Device(0));
        await collectGarbage(3);
        expect(ref.deref()).toBe(new Device(0));
      });

      for (const sample of droppable) {
        it(`test_weakref_supported[${sample.name}]: a WeakRef holds it while held, and nothing in cumem keeps it once dropped`, async () => {
          const held = sample.make();
          const ref = new WeakRef(held);
          expect(ref.deref()).toBe(held);
          sample.close(held);
          const { collected } = await dropAndCollect(sample, () => undefined);
          expect(collected).toBe(true);
        });

        it(`test_usable_in_weak_value_dict[${sample.name}]: a Map of WeakRefs gives it back, and loses it once dropped`, async () => {
          const held = sample.make();
          const values = new Map([['key', new WeakRef(held)]]);
          expect(values.get('key')?.deref()).toBe(held);
          sample.close(held);
          const { collected, kept } = await dropAndCollect(
            sample,
            (value) => new Map([['key', new WeakRef(value)]]),
          );
          expect(collected).toBe(true);
          expect(kept.get('key')?.deref()).toBeUndefined();
        });

        it(`test_usable_in_weak_key_dict[${sample.name}]: a WeakMap keyed by it finds the value, and does not keep it`, async () => {
          const held = sample.make();
          const table = new WeakMap([[held, 'value']]);
          expect(table.get(held)).toBe('value');
          expect(table.has(held)).toBe(true);
          sample.close(held);
          let finalized = false;
          const registry = new FinalizationRegistry(() => {
            finalized = true;
          });
          const { collected } = await dropAndCollect(sample, (value) => {
            registry.register(value, undefined);
            return new WeakMap([[value, 'value']]);
          });
          expect(collected).toBe(true);
          await collectGarbage(20, () => finalized);
          expect(finalized).toBe(true);
        });

        it(`test_usable_in_weak_set[${sample.name}]: a WeakSet has it, and does not keep it`, async () => {
          const held = sample.make();
          const set = new WeakSet([held]);
          expect(set.has(held)).toBe(true);
          sample.close(held);
          const { collected } = await dropAndCollect(sample, (value) => new WeakSet([value]));
          expect(collected).toBe(true);
        });
      }

      it('test_usable_in_weak_value_dict[device] / test_usable_in_weak_key_dict[device] / test_usable_in_weak_set[device]: the interned Device, reached again, finds its entry', () => {
        const values = new Map([['key', new WeakRef(new Device(0))]]);
        const table = new WeakMap([[new Device(0), 'value']]);
        const set = new WeakSet([new Device(0)]);
        expect(values.get('key')?.deref()).toBe(new Device(0));
        expect(table.get(new Device(0))).toBe('value');
        expect(set.has(new Device(0))).toBe(true);
      });
    });

    describe('hashing and keys', () => {
      for (const sample of samples) {
        it(`test_hash_consistency[${sample.name}]: its handle reads the same twice and a Map finds its entry twice`, () => {
          const value = sample.make() as { handle?: bigint };
          try {
            if ('handle' in value) expect(value.handle).toBe(value.handle);
            const table = new Map([[value, 'value']]);
            expect(table.get(value)).toBe('value');
            expect(table.get(value)).toBe('value');
          } finally {
            sample.close(value);
          }
        });
      }

      for (const sample of droppable) {
        it(`test_hash_distinct_same_type[${sample.name}] / test_same_type_inequality: two made are two keys${sample.name === 'memory_resource' ? '' : ' with two handles'}`, () => {
          const a = sample.make() as { handle?: bigint };
          const b = sample.make() as { handle?: bigint };
          try {
            expect(a).not.toBe(b);
            if (sample.name !== 'memory_resource') expect(a.handle).not.toBe(b.handle);
            expect(
              new Map([
                [a, 1],
                [b, 2],
              ]).size,
            ).toBe(2);
            expect(new Set([a, b, a]).size).toBe(2);
          } finally {
            sample.close(a);
            sample.close(b);
          }
        });
      }

      it('test_hash_distinct_cross_type: one object of every kind makes as many Map keys, each described as its own kind', () => {
        const values = samples.map((sample) => sample.make());
        try {
          expect(new Map(values.map((value, index) => [value, index])).size).toBe(samples.length);
          const kinds = values.map((value) => String(value).replace(/\(.*$/, ''));
          expect(new Set(kinds).size).toBe(samples.length);
        } finally {
          for (const [index, sample] of samples.entries()) sample.close(values[index] as object);
        }
      });

      it('test_equality_same_handle[buffer]: Buffer.fromHandle of the same memory is another wrapper (another key) with the same handle and size', () => {
        const buffer = new DeviceMemoryResource(0).allocate(64);
        try {
          const wrapped = Buffer.fromHandle(buffer.handle, buffer.size);
          expect(wrapped.handle).toBe(buffer.handle);
          expect(wrapped.size).toBe(buffer.size);
          expect(wrapped).not.toBe(buffer);
          expect(
            new Map<object, number>([
              [buffer, 1],
              [wrapped, 2],
            ]).size,
          ).toBe(2);
          wrapped.close();
          // Closing the wrapper does not free memory it does not own.
          expect(buffer.isClosed).toBe(false);
        } finally {
          buffer.close();
        }
      });

      it('test_usable_as_dict_key: the same driver object reached again through the API finds the Map entry', () => {
        const mr = new DeviceMemoryResource(0, { maxSize: POOL_SIZE });
        const stream = Stream.create(0);
        const buffer = mr.allocate(64, { stream });
        const event = stream.record();
        try {
          const table = new Map<unknown, string>([
            [new Device(0), 'device'],
            [defaultStream(0), 'default stream'],
            [stream, 'stream'],
            [event, 'event'],
            [buffer, 'buffer'],
            [mr, 'memory resource'],
          ]);
          expect(table.get(new Device(0))).toBe('device');
          expect(table.get(stream.device)).toBe('device');
          expect(table.get(defaultStream(new Device(0)))).toBe('default stream');
          expect(table.get(stream)).toBe('stream');
          expect(table.get(event)).toBe('event');
          expect(table.get(buffer)).toBe('buffer');
          expect(table.get(buffer.memoryResource)).toBe('memory resource');
          expect(table.has(buffer.handle)).toBe(false);
        } finally {
          buffer.close({ stream });
          event.close();
          stream.close();
          mr.close();
        }
      });

      it('test_usable_in_set: a Set of every kind holds each once, whichever way it is reached', () => {
        const mr = new DeviceMemoryResource(0);
        const buffer = mr.allocate(64);
        const stream = Stream.create(0);
        const event = stream.record();
        try {
          const set = new Set<object>([new Device(0), defaultStream(0), stream, event, buffer, mr]);
          set.add(new Device(0));
          set.add(defaultStream(0));
          set.add(buffer.memoryResource as MemoryResource);
          expect(set.size).toBe(6);
          for (const value of [stream.device, event, buffer, stream]) expect(set.has(value)).toBe(true);
        } finally {
          buffer.close();
          event.close();
          stream.close();
        }
      });
    });

    describe('repr', () => {
      const patterns: readonly (readonly [string, () => object, RegExp, RegExp])[] = [
        ['device', () => new Device(0), /^Device\(0\)$/, /^Device\(0\)$/],
        [
          'stream',
          () => Stream.create(0),
          /^Stream\(device: 0, handle: 0x[0-9a-f]+, default: false, closed: false\)$/,
          /^Stream \{ device: 0, handle: '0x[0-9a-f]+', default: false, closed: false \}$/,
        ],
        [
          'event',
          () => Event.create(0),
          /^Event\(device: 0, handle: 0x[0-9a-f]+, interprocess: false, closed: false\)$/,
          /^Event \{ device: 0, handle: '0x[0-9a-f]+', interprocess: false, closed: false \}$/,
        ],
        [
          'buffer',
          () => new DeviceMemoryResource(0).allocate(64),
          /^Buffer\(size: 64, device: 0, address: 0x[0-9a-f]+, closed: false\)$/,
          /^Buffer \{ size: 64, device: 0, address: '0x[0-9a-f]+', closed: false \}$/,
        ],
        [
          'memory_resource',
          () => new DeviceMemoryResource(0, { maxSize: POOL_SIZE }),
          /^DeviceMemoryResource\(device: 0, deviceAccessible: true, hostAccessible: false, .*closed: false.*\)$/,
          /^DeviceMemoryResource \{ device: 0, deviceAccessible: true, hostAccessible: false, [\s\S]*closed: false[\s\S]*\}$/,
        ],
      ];
      for (const [name, make, text, inspected] of patterns) {
        it(`test_repr_format[${name}]: String() and util.inspect show the kind and its facts`, () => {
          const value = make();
          try {
            expect(String(value)).toMatch(text);
            expect(inspect(value, { breakLength: Number.POSITIVE_INFINITY })).toMatch(inspected);
          } finally {
            if (name !== 'device') closeIt(value);
          }
        });
      }
    });
  },
  { requires: needsPools },
);

describeEachDriverWithDevices(adapters, 2, 'cuda.core test_object_protocols.py (two devices)', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('test_hash_distinct_same_type[device] / test_same_type_inequality[device]: Device(0) and Device(1) are two keys', () => {
    const a = new Device(0);
    const b = new Device(1);
    expect(a).not.toBe(b);
    expect(a.ordinal).not.toBe(b.ordinal);
    expect(
      new Map([
        [a, 0],
        [b, 1],
        [new Device(0), 2],
      ]).size,
    ).toBe(2);
    expect(String(b)).toBe('Device(1)');
  });
});
