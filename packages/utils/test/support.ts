// Shared by the test files only (not exported from the package).

import { type Driver, MemLocationType, MemRangeAttribute } from '@cumem/core-types';
import type { Buffer } from '@cumem/memory';
import { isTypedError } from '@cumem/testing';
import type { StridedLayout } from '../src/strided/strided-layout.js';

// The adapters every test file of this package runs against (besides the reference driver).
export { adapters, patternBytes } from '@cumem/test-support';

/**
 * `expect(call).toThrow(strictTypeError)`: a TypeError of cumem's own checks, never one the engine
 * raised because an argument reached code unchecked. The shared check is @cumem/testing's
 * isTypedError (it refuses "Cannot read properties of ...", "... is not a function", ...); the
 * engine's private-field message ("Cannot read private member", what a Proxy of a class
 * instance meets) is refused here too.
 */
export const strictTypeError: Error = {
  asymmetricMatch(error: unknown): boolean {
    return (
      error instanceof TypeError &&
      isTypedError(error) &&
      !/private member|private field|Receiver must be|proxy that has been revoked/.test(error.message)
    );
  },
  toString: () => "a TypeError of cumem's own checks",
  toAsymmetricMatcher: () => "a TypeError of cumem's own checks",
  // vitest's toThrow takes an asymmetric matcher, though its types list Error instances only.
} as unknown as Error;

/** Where the driver says a range was last prefetched: `'device:0'` or `'host'`. */
export function lastPrefetch(driver: Driver, buffer: Buffer): string {
  const type = driver.memRangeGetAttribute(
    buffer.handle,
    buffer.size,
    MemRangeAttribute.LastPrefetchLocationType,
  );
  const id = driver.memRangeGetAttribute(
    buffer.handle,
    buffer.size,
    MemRangeAttribute.LastPrefetchLocationId,
  );
  if (type === MemLocationType.Device) return `device:${id}`;
  if (type === MemLocationType.Host || type === MemLocationType.HostNuma) return 'host';
  return `type ${type}`;
}

/** Every index of `shape` in C order. */
export function* indices(shape: readonly number[]): Generator<number[]> {
  if (shape.some((extent) => extent === 0)) return;
  const index = new Array<number>(shape.length).fill(0);
  while (true) {
    yield [...index];
    let axis = shape.length - 1;
    while (axis >= 0) {
      index[axis]! += 1;
      if (index[axis]! < shape[axis]!) break;
      index[axis] = 0;
      axis--;
    }
    if (axis < 0) return;
  }
}

/**
 * The bytes a strided copy must produce, computed element by element on the CPU: `dst` (a copy
 * of the destination memory before the copy) with every element of `srcLayout` in `src` written
 * at its place in `dstLayout`.
 */
export function expectedCopy(
  dst: Uint8Array,
  dstLayout: StridedLayout,
  src: Uint8Array,
  srcLayout: StridedLayout,
): Uint8Array {
  const out = dst.slice();
  const itemsize = srcLayout.itemsize;
  for (const index of indices(srcLayout.shape)) {
    const from = srcLayout.offsetOf(index) * itemsize;
    const to = dstLayout.offsetOf(index) * itemsize;
    out.set(src.subarray(from, from + itemsize), to);
  }
  return out;
}
