/**
 * cuda.core's object-protocol tests (equality, hashing, weak references, repr), translated case
 * by case for the objects of `@cumem/compute`: LaunchConfig, ObjectCode, Kernel and Program. The
 * memory objects (Device, Stream, Event, Buffer, resources) have their own translation of this
 * file in packages/memory/test/upstream/.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_object_protocols.py`, as read at commit
 * 0370d07561b75af50e0319738e807abd605cdc53. Each case title starts with the upstream function name
 * and its parametrization (upstream's fixture name without `sample_`).
 *
 * How cuda.core's Python maps here:
 * - `==` / `hash()` / dict and set keys -> identity (`===`), `Map` and `Set`, which key by identity
 *   (cumem has no value equality: two LaunchConfigs with the same fields are two keys).
 * - `weakref.ref`, `WeakValueDictionary`, `WeakKeyDictionary`, `WeakSet` -> `WeakRef`, a `Map` of
 *   `WeakRef`s, `WeakMap`, `WeakSet`. Holding an object weakly cannot fail in JS, so each case also
 *   checks what makes the weak reference useful: once the test drops the object, it is collected.
 * - `repr()` -> `String()` (`Kind(key: value, ...)`) and `util.inspect`, cumem's one form for
 *   every public class (CONTRIBUTING.md). cumem's Program has no `backend` yet (planned, API.md
 *   0.4): it shows its code type, architecture and name instead.
 * - upstream's `test_kernel` fixture (an empty kernel compiled to a cubin) -> `fill_f32` of the
 *   reference kernels' PTX, which every driver loads, so these cases run without NVRTC; the cases
 *   about what Program compiles need NVRTC (and a GPU for a cubin) and skip visibly without.
 *
 * Not ported:
 * - test_closeable_object_state_and_safe_inspection[program_nvrtc]: cumem's Program owns no driver
 *   state and has no `close()` / `isClosed` (planned, API.md 0.4).
 * - test_repr_format[object_code_ltoir], test_repr_format[program_nvvm]: cumem has no LTO IR code
 *   type and no NVVM backend.
 * - test_equality_same_handle[kernel]: `Kernel.fromHandle` is planned for 0.4 (API.md), not built;
 *   the case below gets the second Kernel the one way cumem can, `getKernel` again.
 * - every parametrization over graph objects: cumem has no CUDA graphs yet (planned, API.md 0.4).
 * - test_equality_basic, test_no_cross_type_equality: reflexive `===`, and no two distinct objects
 *   being `===`, are guarantees of the language; a case could not fail.
 * - test_pickle_roundtrip[object_code_cubin]: pickling is a Python concern.
 */
import { inspect } from 'node:util';
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { LaunchConfig, ObjectCode, Program } from '../../src/index.js';
import { adapters, useDeviceZero } from '../support.js';
import { gatedIt, needsGpuAndNvrtc, needsNvrtc } from './upstream-gates.js';

const emptyKernelSource = 'extern "C" __global__ void test_kernel() {}';

/** One kind of object upstream's fixtures give (the caller releases it through `release`). */
interface Sample {
  readonly name: string;
  readonly make: () => object;
  readonly release: (value: object) => void;
}

const closeIt = (value: object) => (value as { close(): void }).close();
const keepIt = () => {};

const launchConfig: Sample = {
  name: 'launch_config',
  make: () => new LaunchConfig({ grid: [1], block: [1] }),
  release: keepIt,
};
const objectCode: Sample = {
  name: 'object_code',
  make: () => ObjectCode.fromPTX(referenceKernelsPTX),
  release: closeIt,
};
// A Kernel keeps its ObjectCode alive; closing a kernel's code is the kernel's release.
const kernel: Sample = {
  name: 'kernel',
  make: () => ObjectCode.fromPTX(referenceKernelsPTX).getKernel('fill_f32'),
  release: (value) => (value as { objectCode: ObjectCode }).objectCode.close(),
};
const program: Sample = {
  name: 'program_nvrtc',
  make: () => new Program(emptyKernelSource, 'c++'),
  release: keepIt,
};

/** upstream's HASH_TYPES and EQ_TYPES of compute (Program is weak-referenceable only). */
const keyed = [launchConfig, objectCode, kernel];
const weaklyHeld = [...keyed, program];

/** upstream's SAME_TYPE_PAIRS of compute: an object and a distinct one of its kind. */
const pairs: readonly (readonly [Sample, () => object])[] = [
  [launchConfig, () => new LaunchConfig({ grid: [2], block: [2] })],
  [objectCode, () => ObjectCode.fromPTX(referenceKernelsPTX)],
  [kernel, () => ObjectCode.fromPTX(referenceKernelsPTX).getKernel('add_f32')],
];

/** Makes a sample, hands it to `keep` and drops it; then collects until the object is gone. */
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
  const collected = await collectGarbageUntil(() => ref?.deref() === undefined);
  return { collected, kept: kept as T };
}

describeEachDriver(adapters, 'cuda.core test_object_protocols.py (compute objects)', (entry) => {
  beforeAll(() => {
    useDeviceZero(entry.driver).stream.close();
  });

  describe('weak references', () => {
    for (const sample of weaklyHeld) {
      it(`test_weakref_supported[${sample.name}]: a WeakRef holds it while held, and nothing keeps it once dropped`, async () => {
        const held = sample.make();
        expect(new WeakRef(held).deref()).toBe(held);
        sample.release(held);
        const { collected } = await dropAndCollect(sample, () => undefined);
        expect(collected).toBe(true);
      });

      it(`test_usable_in_weak_value_dict[${sample.name}]: a Map of WeakRefs gives it back, and loses it once dropped`, async () => {
        const held = sample.make();
        expect(new Map([['key', new WeakRef(held)]]).get('key')?.deref()).toBe(held);
        sample.release(held);
        const { collected, kept } = await dropAndCollect(
          sample,
          (value) => new Map([['key', new WeakRef(value)]]),
        );
        expect(collected).toBe(true);
        expect(kept.get('key')?.deref()).toBeUndefined();
      });
    }

    for (const sample of keyed) {
      it(`test_usable_in_weak_key_dict[${sample.name}]: a WeakMap keyed by it finds the value, and does not keep it`, async () => {
        const held = sample.make();
        const table = new WeakMap([[held, 'value']]);
        expect(table.get(held)).toBe('value');
        sample.release(held);
        const { collected } = await dropAndCollect(sample, (value) => new WeakMap([[value, 'value']]));
        expect(collected).toBe(true);
      });

      it(`test_usable_in_weak_set[${sample.name}]: a WeakSet has it, and does not keep it`, async () => {
        const held = sample.make();
        expect(new WeakSet([held]).has(held)).toBe(true);
        sample.release(held);
        const { collected } = await dropAndCollect(sample, (value) => new WeakSet([value]));
        expect(collected).toBe(true);
      });
    }
  });

  describe('hashing and keys', () => {
    for (const sample of keyed) {
      it(`test_hash_consistency[${sample.name}] / test_usable_as_dict_key / test_usable_in_set: a Map and a Set find it again`, () => {
        const value = sample.make();
        try {
          const table = new Map([[value, 'value']]);
          expect(table.get(value)).toBe('value');
          expect(table.get(value)).toBe('value');
          const set = new Set([value, value]);
          expect(set.size).toBe(1);
          expect(set.has(value)).toBe(true);
        } finally {
          sample.release(value);
        }
      });
    }

    for (const [sample, makeOther] of pairs) {
      it(`test_hash_distinct_same_type[${sample.name}] / test_same_type_inequality: it and ${sample.name}_alt are two keys that differ`, () => {
        const a = sample.make();
        const b = makeOther();
        try {
          expect(a).not.toBe(b);
          expect(
            new Map([
              [a, 1],
              [b, 2],
            ]).size,
          ).toBe(2);
          // What tells them apart besides identity: the fields, the kernel's name.
          if (sample === launchConfig) expect((a as LaunchConfig).grid).not.toEqual((b as LaunchConfig).grid);
          if (sample === kernel) expect(String(a)).not.toBe(String(b));
        } finally {
          sample.release(a);
          sample.release(b);
        }
      });
    }

    it('test_hash_distinct_cross_type: one LaunchConfig, ObjectCode and Kernel make three keys of three kinds', () => {
      const values = keyed.map((sample) => sample.make());
      try {
        expect(new Map(values.map((value, index) => [value, index])).size).toBe(3);
        expect(new Set(values.map((value) => inspect(value).replace(/ .*$/s, ''))).size).toBe(3);
      } finally {
        for (const [index, sample] of keyed.entries()) sample.release(values[index] as object);
      }
    });

    it('test_equality_same_handle[kernel]: getKernel of the same name twice gives the same Kernel, a stable Map key', () => {
      const code = ObjectCode.fromPTX(referenceKernelsPTX);
      try {
        const first = code.getKernel('fill_f32');
        const second = code.getKernel('fill_f32');
        expect(second).toBe(first);
        expect(new Map([[first, 'value']]).get(second)).toBe('value');
      } finally {
        code.close();
      }
    });
  });

  describe('repr', () => {
    it('test_repr_format[launch_config]: util.inspect shows grid, block, shared memory and cluster', () => {
      const config = new LaunchConfig({ grid: [2, 3], block: 4, sharedMemBytes: 16 });
      expect(inspect(config, { breakLength: Number.POSITIVE_INFINITY })).toBe(
        'LaunchConfig { grid: [ 2, 3, 1 ], block: [ 4, 1, 1 ], sharedMemBytes: 16, cluster: null }',
      );
    });

    it('test_repr_format[launch_config]: String() shows grid, block, shared memory and cluster', () => {
      const config = new LaunchConfig({ grid: [2, 3], block: 4, sharedMemBytes: 16 });
      expect(String(config)).toMatch(
        /^LaunchConfig\(grid: .*2.*3.*, block: .*4.*, sharedMemBytes: 16, cluster: null\)$/,
      );
    });

    it('test_repr_format[kernel]: String() and util.inspect show its name and code type', () => {
      const code = ObjectCode.fromPTX(referenceKernelsPTX);
      try {
        const fill = code.getKernel('fill_f32');
        expect(String(fill)).toBe('Kernel(name: fill_f32, codeType: ptx, closed: false)');
        expect(inspect(fill)).toBe("Kernel { name: 'fill_f32', codeType: 'ptx', closed: false }");
      } finally {
        code.close();
      }
    });

    it('test_repr_format[object_code_ptx] (loaded from PTX text): String() shows code type ptx and the size', () => {
      const code = ObjectCode.fromPTX(referenceKernelsPTX);
      try {
        expect(String(code)).toMatch(/^ObjectCode\(codeType: ptx, size: \d+, closed: false\)$/);
        expect(inspect(code)).toMatch(/^ObjectCode \{ codeType: 'ptx', size: \d+, closed: false \}$/);
      } finally {
        code.close();
      }
    });

    gatedIt(
      needsNvrtc(entry),
      'test_repr_format[object_code_ptx]: what Program compiles to PTX shows code type ptx',
      () => {
        const code = new Program(emptyKernelSource, 'c++').compile('ptx');
        try {
          expect(String(code)).toMatch(/^ObjectCode\(codeType: ptx, size: \d+, closed: false\)$/);
        } finally {
          code.close();
        }
      },
    );

    gatedIt(
      needsGpuAndNvrtc(entry),
      'test_repr_format[object_code_cubin]: what Program compiles to a cubin shows code type cubin',
      () => {
        const code = new Program(emptyKernelSource, 'c++').compile('cubin');
        try {
          expect(String(code)).toMatch(/^ObjectCode\(codeType: cubin, size: \d+, closed: false\)$/);
          expect(String(code.getKernel('test_kernel'))).toBe(
            'Kernel(name: test_kernel, codeType: cubin, closed: false)',
          );
        } finally {
          code.close();
        }
      },
    );

    it('test_repr_format[program_nvrtc]: String() shows code type c++, an sm_ architecture and the name', () => {
      const cpp = new Program(emptyKernelSource, 'c++');
      expect(String(cpp)).toMatch(/^Program\(codeType: c\+\+, arch: sm_\d+[a-z]?, name: program\.cu\)$/);
      expect(inspect(cpp)).toMatch(
        /^Program \{ codeType: 'c\+\+', arch: 'sm_\d+[a-z]?', name: 'program\.cu' \}$/,
      );
    });

    it('test_repr_format[program_ptx]: a PTX Program shows code type ptx and no architecture of its own', () => {
      const ptx = new Program(referenceKernelsPTX, 'ptx');
      expect(String(ptx)).toBe('Program(codeType: ptx, arch: null, name: program.cu)');
    });
  });
});
