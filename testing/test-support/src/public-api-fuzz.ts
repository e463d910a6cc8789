// The public-API fuzzing that @cumem/memory, @cumem/utils, @cumem/interop-arrow and
// @cumem/compute share: the argument values every surface is tried with, and one property test
// per entry point. It lives in this private workspace package, not in a subpath of the published
// @cumem/testing, because it needs fast-check (which @cumem/testing's users should not have to
// install) and it is no API for them.
import type { EntryPoint } from '@cumem/testing/vitest';
import { expectOnlyTypedErrors } from '@cumem/testing/vitest';
import fc from 'fast-check';
import { it } from 'vitest';

/** CUMEM_FUZZ_RUNS=2000 for a longer local search; CI keeps the default. */
export const runsPerEntryPoint = Number(process.env.CUMEM_FUZZ_RUNS ?? 40);

/** An ArrayBuffer of `bytes` bytes whose memory was taken away (transferred), and a view of it. */
function detachedMemory(bytes: number): [ArrayBuffer, Uint8Array] {
  const buffer = new ArrayBuffer(bytes);
  const view = new Uint8Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  return [buffer, view];
}

/** A resizable ArrayBuffer (its memory may move or shrink) and a length-tracking view of it. */
function resizableMemory(bytes: number): [ArrayBuffer, Uint8Array] {
  const Resizable = ArrayBuffer as unknown as new (
    length: number,
    options: { maxByteLength: number },
  ) => ArrayBuffer;
  const buffer = new Resizable(bytes, { maxByteLength: bytes * 2 });
  return [buffer, new Uint8Array(buffer)];
}

/**
 * Values at the edges of every argument check (sizes, counts, indices, bigints, empty and
 * wrong-typed values; detached, resizable and shared memory), plus `extra` values that matter to
 * one package's surface.
 */
export function specialValues(...extra: unknown[]): fc.Arbitrary<unknown> {
  return fc.constantFrom<unknown>(
    -1,
    0,
    1,
    2,
    3,
    2 ** 31,
    2 ** 53,
    -0,
    0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    0n,
    1n,
    -1n,
    2n ** 64n,
    '',
    null,
    undefined,
    true,
    [],
    {},
    new Uint8Array(8),
    Symbol('x'),
    ...detachedMemory(64),
    ...resizableMemory(64),
    new SharedArrayBuffer(64),
    ...extra,
  );
}

/** Up to four arguments, each arbitrary, special or one of `valid`'s values. */
export function argumentLists(
  special: fc.Arbitrary<unknown>,
  ...more: fc.Arbitrary<unknown>[]
): fc.Arbitrary<unknown[]> {
  return fc.array(fc.oneof(fc.anything(), special, ...more), { maxLength: 4 });
}

/**
 * Fresh instances from `factories`, closed before use (those with a `close` method): a closed
 * buffer, stream, resource or module given anywhere must give a typed error (CudaStateError),
 * never reach the driver.
 */
export function closedInstances(factories: readonly (() => unknown)[]): fc.Arbitrary<unknown> {
  return fc.constantFrom(...factories).map((make) => {
    const value = make() as { close?: () => void };
    if (typeof value?.close === 'function') value.close();
    return value;
  });
}

/**
 * Argument lists every entry point is also called with, before the random ones: `null` as the
 * last argument (where an options object usually goes) after none, one or two plausible leading
 * arguments: each of `first`'s values, then each of those followed by each of `second`'s. A
 * random list reaches such a case seldom: `registerHostMemory(arrayBuffer, null)` read
 * `null.flags` unchecked, and the fuzz found it in one CI run of many. The values are made anew
 * for each entry point's test (a call may close what it was given).
 */
export function trailingNullLists(
  first: readonly (() => unknown)[],
  second: readonly (() => unknown)[],
): () => unknown[][] {
  return () => {
    const lists: unknown[][] = [[null]];
    for (const a of first) lists.push([a(), null]);
    for (const a of first) for (const b of second) lists.push([a(), b(), null]);
    return lists;
  };
}

/**
 * One test that the surface was found (at least `minimum` entry points), then one property test
 * per entry point: called with `argumentList`'s values, and first with each of `examples`' lists
 * when given ({@link trailingNullLists}), it returns or throws a typed error. `restore` runs
 * after each call (an entry point may have swapped the driver).
 */
export function fuzzEntryPoints(
  entries: readonly EntryPoint[],
  options: {
    minimum: number;
    argumentList: fc.Arbitrary<unknown[]>;
    restore: () => void;
    examples?: () => unknown[][];
  },
): void {
  it('finds the surface to fuzz', () => {
    if (entries.length < options.minimum) throw new Error(`only ${entries.length} entry points found`);
  });

  for (const entry of entries) {
    it(`${entry.name} gives a result or a typed error for arbitrary arguments`, async () => {
      // fast-check counts examples within numRuns: the random lists come on top of them.
      const examples = (options.examples?.() ?? []).map((args) => [args] as [unknown[]]);
      await fc.assert(
        fc.asyncProperty(options.argumentList, async (args) => {
          try {
            await expectOnlyTypedErrors(entry.name, () => entry.call(args));
          } finally {
            options.restore();
          }
        }),
        { numRuns: runsPerEntryPoint + examples.length, examples },
      );
    });
  }
}
