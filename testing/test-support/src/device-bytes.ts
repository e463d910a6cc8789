import { expect } from 'vitest';
import { patternBytes } from './pattern-bytes.js';

/** What `download` reads: a @cumem/memory Buffer (structurally, so any package's tests may pass one). */
export interface CopiesToHost {
  readonly size: number;
  copyTo(target: Uint8Array): void;
}

/** A new host copy of every byte of `buffer`. */
export function download(buffer: CopiesToHost): Uint8Array {
  const out = new Uint8Array(buffer.size);
  buffer.copyTo(out);
  return out;
}

/** What `upload` writes: a @cumem/memory Buffer (structurally, as {@link CopiesToHost}). */
export interface CopiesFromHost {
  readonly size: number;
  copyFrom(source: Uint8Array): void;
}

/** Fills every byte of `buffer` with `patternBytes(size, seed)`. @returns those bytes, to compare with later. */
export function upload(buffer: CopiesFromHost, seed?: number): Uint8Array {
  const data = patternBytes(buffer.size, seed);
  buffer.copyFrom(data);
  return data;
}

/** Byte equality of two views, fast on megabytes (vitest's deep equality walks element by element). */
export function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  const bytes = (view: ArrayBufferView) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  return bytes(a).equals(bytes(b));
}

/**
 * Requires `actual` to equal `expected`, fast on megabytes (vitest's deep equality walks element
 * by element); a mismatch names the first differing byte.
 */
export function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  if (sameBytes(actual, expected)) return;
  const first = actual.findIndex((byte, i) => byte !== expected[i]);
  expect(first, `first differing byte at ${first}`).toBe(-1);
}

/** A typed-array type `expectEvery` reads elements as. */
export type ElementArray = Float32ArrayConstructor | Float64ArrayConstructor | Int32ArrayConstructor;

/**
 * Requires every element of `buffer`, read as `type`, to be `value` (what a fill kernel wrote);
 * a mismatch names the first differing element.
 */
export function expectEvery(buffer: CopiesToHost, type: ElementArray, value: number): void {
  const elements = new type(buffer.size / type.BYTES_PER_ELEMENT);
  buffer.copyTo(new Uint8Array(elements.buffer));
  const first = elements.findIndex((element) => element !== value);
  expect(first, `first element other than ${value} at ${first}`).toBe(-1);
}
