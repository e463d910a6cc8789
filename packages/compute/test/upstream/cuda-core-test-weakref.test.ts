/**
 * cuda.core's weak-reference test, translated for the objects of `@cumem/compute`: LaunchConfig,
 * ObjectCode and Kernel (Device, Stream, Event and Buffer: packages/memory/test/upstream/).
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_weakref.py`, as read at commit
 * 4a9cb9f3ea4f7d2edae469b3e07512b42b6b1b88. Each case title starts with the upstream function name
 * and its parametrization.
 *
 * How cuda.core's Python maps here: `weakref.ref(obj)() is obj` -> `new WeakRef(obj).deref()`,
 * plus what a weak reference is for (holding weakly cannot fail in JS): a FinalizationRegistry sees
 * the object go once the test drops it. upstream's `object_code` fixture (an empty kernel compiled
 * to a cubin) -> the reference kernels' PTX, which every driver loads without NVRTC; its `kernel`
 * -> `fill_f32` of it.
 *
 * Not ported: nothing (the memory objects are translated in the memory package).
 */
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { LaunchConfig, ObjectCode } from '../../src/index.js';
import { adapters, useDeviceZero } from '../support.js';

const fixtures: readonly (readonly [string, () => object, (value: object) => void])[] = [
  ['launch_config', () => new LaunchConfig({ grid: [1], block: [1] }), () => {}],
  ['object_code', () => ObjectCode.fromPTX(referenceKernelsPTX), (value) => (value as ObjectCode).close()],
  [
    'kernel',
    () => ObjectCode.fromPTX(referenceKernelsPTX).getKernel('fill_f32'),
    (value) => (value as { objectCode: ObjectCode }).objectCode.close(),
  ],
];

describeEachDriver(adapters, 'cuda.core test_weakref.py', (entry) => {
  beforeAll(() => {
    useDeviceZero(entry.driver).stream.close();
  });

  for (const [name, make, release] of fixtures) {
    it(`test_weakref[${name}]: a WeakRef gives it back while held; once dropped, it is finalized`, async () => {
      const held = make();
      expect(new WeakRef(held).deref()).toBe(held);
      release(held);

      let finalized = false;
      const registry = new FinalizationRegistry<string>((token) => {
        finalized = token === name;
      });
      // In a function of its own, so that no local of this frame holds the object.
      (() => {
        registry.register(make(), name);
      })();
      expect(await collectGarbageUntil(() => finalized)).toBe(true);
    });
  }
});
