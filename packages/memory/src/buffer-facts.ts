// A Buffer's facts (buffer-state.ts) for @cumem/utils' batch operations, which look at thousands
// of slices per call: each reader is a private-field read or two, where the public getters it
// stands for are two or three calls (`size` -> `byteSize` -> the field) and `isClosed` walks the
// whole slice chain. The batch checks ask per element only what can differ between slices of
// one parent (brand, own state, parent, pointer, size) and the parent's facts once per run of
// its slices. Like every read of a private field, each reader but bufferGroup (which answers
// undefined) throws a TypeError for an object the field was not stamped on (an imitation, a
// Proxy, an object inheriting from a Buffer), so a caller that forgot the brand test still
// cannot be lied to. Only cumem's own packages use them (exported from '@cumem/memory/internal').
import type { Driver } from '@cumem/core-types';
import type { BufferBase } from './buffer-base.js';
import { closedFlag, followsOwner } from './buffer-parts.js';
import { BufferState } from './buffer-state.js';
import type { MemoryResource } from './memory-resource.js';

const { pointer, byteSize, parent, flags, runtime, resource } = BufferState;

/**
 * The brand test, the buffer's own state and the buffer whose facts it shares, in one call:
 * - `undefined` for anything but a Buffer of @cumem/memory (the test of `bufferBrand.has`);
 * - `null` for a Buffer closed itself or following a `fromHandle` owner: ask its `isClosed`;
 * - else its parent for a slice (which shares the parent's driver, memory resource and pointer
 *   attributes, and is closed when the parent is), the buffer itself otherwise.
 */
export function bufferGroup(value: unknown): BufferBase | null | undefined {
  // The brand test is the read itself: reading a private field of an object it was not stamped
  // on throws (primitives, imitations, Proxies and objects inheriting from a Buffer included),
  // and the fields are stamped together, so this is `bufferBrand.has` (the `#pointer in value`
  // of buffer-state.ts) in one private-field access instead of two. Nothing else in the try
  // can throw. About 40% less than `has` then `flags` (bench/js/copy-batch-parts.mjs).
  let bits: number;
  try {
    bits = flags(value as BufferBase);
  } catch {
    return undefined;
  }
  if ((bits & (closedFlag | followsOwner)) !== 0) return null;
  return parent(value as BufferBase) ?? (value as BufferBase);
}

// The readers are BufferState's statics themselves: a wrapper would be one more call to inline
// into loops that are already at V8's inlining budget.

/** The buffer's address (its `handle`). @throws TypeError for anything but a Buffer. */
export const bufferPointer: (buffer: BufferBase) => bigint = pointer;

/** The buffer's size in bytes (its `size`). @throws TypeError for anything but a Buffer. */
export const bufferByteSize: (buffer: BufferBase) => number = byteSize;

/**
 * The buffer a slice was taken from, or null (a buffer from a resource or `fromHandle`). A slice
 * shares its parent's driver, memory resource and pointer attributes; it is closed when it or
 * its parent is.
 * @throws TypeError for anything but a Buffer.
 */
export const bufferParent: (buffer: BufferBase) => BufferBase | null = parent;

/** The resource the memory came from (slices: the parent's), or null for external memory. @throws TypeError for anything but a Buffer. */
export const bufferResource: (buffer: BufferBase) => MemoryResource | null = resource;

/** The driver the buffer belongs to (as `driverOf`, without its dispatch). @throws TypeError for anything but a Buffer. */
export function bufferDriver(buffer: BufferBase): Driver {
  return runtime(buffer).driver;
}
