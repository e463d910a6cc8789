/**
 * cuda.core's weak-reference test, translated for the objects of `@cumem/memory`: Device, Stream,
 * Event and Buffer (LaunchConfig, ObjectCode and Kernel: packages/compute/test/upstream/).
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_weakref.py`, as read at commit
 * 4a9cb9f3ea4f7d2edae469b3e07512b42b6b1b88. Each case title starts with the upstream function name
 * and its parametrization.
 *
 * How cuda.core's Python maps here: `weakref.ref(obj)() is obj` -> `new WeakRef(obj).deref()`.
 * That alone cannot fail in JS (every object can be held weakly), so each case also checks what a
 * weak reference is for: a FinalizationRegistry sees the object go once the test drops it (nothing
 * in cumem keeps a wrapper alive), except the interned Device, which stays.
 *
 * Not ported:
 * - test_weakref[context]: cumem has no Context object.
 */
import { Device, DeviceMemoryResource, defaultStream, Event, Stream, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { collectGarbage } from '../garbage.js';
import { needsPools } from './upstream-gates.js';

// upstream's fixtures: a stream and an event of device 0, and a 1024-byte buffer.
const droppable: readonly (readonly [string, () => { close(): void }])[] = [
  ['stream', () => Stream.create(0)],
  ['event', () => Event.create(0)],
  ['buffer', () => new DeviceMemoryResource(0).allocate(1024)],
];

describeEachDriver(
  adapters,
  'cuda.core test_weakref.py',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('test_weakref[device]: a WeakRef gives the Device back, and the interned Device outlives collection', async () => {
      const ref = new WeakRef(new Device(0));
      expect(ref.deref()).toBe(new Device(0));
      await collectGarbage(3);
      expect(ref.deref()).toBe(new Device(0));
    });

    for (const [name, make] of droppable) {
      it(`test_weakref[${name}]: a WeakRef gives it back while held; once dropped, it is finalized`, async () => {
        const held = make();
        const ref = new WeakRef(held);
        expect(ref.deref()).toBe(held);
        held.close();

        let finalized = false;
        const registry = new FinalizationRegistry<string>((token) => {
          finalized = token === name;
        });
        // In a function of its own, so that no local of this frame holds the object.
        (() => {
          registry.register(make(), name);
        })();
        await collectGarbage(
          50,
          () => finalized,
          () => defaultStream(0).sync(),
        );
        expect(finalized).toBe(true);
      });
    }
  },
  { requires: needsPools },
);
