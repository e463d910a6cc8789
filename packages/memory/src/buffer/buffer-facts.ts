// A Buffer's facts (buffer-state.ts), read from its private state: how every module of cumem
// reads a buffer, @cumem/memory's own and, through '@cumem/memory/internal', the packages above.
// Never through a Buffer's getters and methods: a Buffer is an ordinary, extensible object
// (making each one non-extensible cost ~25 ns of every allocate, issue 26), so a program may
// define own properties on it (`Object.defineProperty(buf, 'handle', ...)`) or give it another
// prototype; only the program's own reads see those, never what cumem reads to copy, free or
// check memory (shadowed-members.test.ts in each package).
//
// For @cumem/utils' batch operations, which look at thousands of slices per call, each reader
// is a private-field read or two, where the public getters it stands for are two or three calls
// (`size` -> `byteSize` -> the field) and `isClosed` walks the whole slice chain. The batch
// checks ask per element only what can differ between slices of one parent (brand, own state,
// parent, pointer, size) and the parent's facts once per run of its slices. Like every read of a
// private field, each reader but bufferGroup (which answers undefined) throws a TypeError for an
// object the field was not stamped on (an imitation, a Proxy, an object inheriting from a
// Buffer), so a caller that forgot the brand test still cannot be lied to.
import { CudaStateError, type Driver } from '@cumem/core-types';
import type { MemoryResource } from '../resources/memory-resource.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { ObjectBrand } from '../runtime/object-brand.js';
import type { Stream } from '../stream/stream.js';
import type { BufferBase } from './buffer-base.js';
import { closedFlag, followsOwner, managedClass } from './buffer-parts.js';
import { BufferState } from './buffer-state.js';
import { type PointerInfo, queryPointer } from './pointer-info.js';

const { pointer, byteSize, parent, flags, runtime, resource, allocationStream, ownerObject } = BufferState;
// The same readers under the names the functions below use (their locals take the short ones).
const { flags: flagsOf, parent: parentOf, ownerObject: ownerObjectOf, resource: resourceOf } = BufferState;
const { runtime: runtimeOf, pointer: pointerOf, has: hasBufferState, info: infoOf, setInfo } = BufferState;

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

/** The buffer's driver runtime (its driver and contexts). @throws TypeError for anything but a Buffer. */
export const bufferRuntime: (buffer: BufferBase) => DriverRuntime = runtime;

/** The stream the buffer was allocated on, if any (its close is ordered there by default). @throws TypeError for anything but a Buffer. */
export const bufferAllocationStream: (buffer: BufferBase) => Stream | undefined = allocationStream;

/** The buffer's state bits (buffer-parts.ts). @throws TypeError for anything but a Buffer. */
export const bufferFlags: (buffer: BufferBase) => number = flags;

/** What keeps external memory alive (its `owner`): a slice's parent, a wrapper's owner, or null. @throws TypeError for anything but a Buffer. */
export const bufferOwner: (buffer: BufferBase) => unknown = ownerObject;

/**
 * An object given as `owner` to {@link Buffer.fromHandle} may expose, under this symbol, the
 * Buffer holding the memory it shows (interop-arrow's CudaBuffer and HostBuffer do): host views
 * taken through the wrapper are then kept alive with, and detached by, that Buffer's owner.
 */
export const ownerMemoryBuffer: unique symbol = Symbol.for('@cumem/memory.ownerMemoryBuffer');

/**
 * The brand of every Buffer and ManagedBuffer: the one test the safe API applies to a value
 * passed as a buffer, here and in the packages above (see object-brand.ts). It reads a private
 * field, which a shaped object, an object inheriting from a Buffer and a Proxy of one lack.
 */
export const bufferBrand: ObjectBrand<BufferBase> = new ObjectBrand<BufferBase>(
  'Buffer of @cumem/memory',
  hasBufferState,
);

// What follows from the facts: closed state, the owner chain, where the memory is.

/** The class name in messages: `ManagedBuffer` for managed buffers' class, else `Buffer`. */
export function bufferTypeName(buffer: BufferBase): string {
  return (flagsOf(buffer) & managedClass) !== 0 ? 'ManagedBuffer' : 'Buffer';
}

/**
 * Closed: `close()` ran on it or on the buffer it slices, or the owner it follows is closed.
 * A loop up the slice chain, not recursion: V8 does not inline recursion, and batch operations
 * ask this of thousands of slices per call.
 */
export function bufferIsClosed(start: BufferBase): boolean {
  let buffer: BufferBase | null = start;
  do {
    const flags = flagsOf(buffer);
    if ((flags & closedFlag) !== 0) return true;
    if ((flags & followsOwner) !== 0 && ownerIsClosed(ownerObjectOf(buffer))) return true;
    buffer = parentOf(buffer);
  } while (buffer !== null);
  return false;
}

/** @throws CudaStateError naming the buffer's class when it is closed ({@link bufferIsClosed}). */
export function checkBufferOpen(buffer: BufferBase): void {
  if (bufferIsClosed(buffer)) throw CudaStateError.closed(bufferTypeName(buffer));
}

/** The buffer whose memory `start` shows: through slices' parents and owner buffers. */
export function bufferMemoryOwner(start: BufferBase): BufferBase {
  let buffer: BufferBase = start;
  for (;;) {
    const parent = parentOf(buffer);
    if (parent !== null) buffer = parent;
    else {
      const next = (flagsOf(buffer) & followsOwner) !== 0 ? bufferOfOwnerObject(ownerObjectOf(buffer)) : null;
      if (next === null) return buffer;
      buffer = next;
    }
  }
}

/** How external memory is accessible, from pointer attributes (asked once, kept by the wrapper). */
export function bufferPointerInfo(buffer: BufferBase): PointerInfo {
  let info = infoOf(buffer);
  if (info === undefined) {
    const parent = parentOf(buffer);
    info = parent !== null ? bufferPointerInfo(parent) : queryPointer(runtimeOf(buffer), pointerOf(buffer));
    setInfo(buffer, info);
  }
  return info;
}

/** The device the memory is on, or -1 for host memory. */
export function bufferDeviceId(buffer: BufferBase): number {
  const resource = resourceOf(buffer);
  return resource !== null ? resource.deviceId : bufferPointerInfo(buffer).deviceId;
}

/** The device can use the memory. */
export function bufferIsDeviceAccessible(buffer: BufferBase): boolean {
  const resource = resourceOf(buffer);
  return resource !== null ? resource.isDeviceAccessible : bufferPointerInfo(buffer).isDeviceAccessible;
}

/** The CPU can read and write the memory. */
export function bufferIsHostAccessible(buffer: BufferBase): boolean {
  const resource = resourceOf(buffer);
  return resource !== null ? resource.isHostAccessible : bufferPointerInfo(buffer).isHostAccessible;
}

/** The memory is CUDA managed (unified) memory. */
export function bufferIsManaged(buffer: BufferBase): boolean {
  const resource = resourceOf(buffer);
  return resource !== null ? resource.isManaged : bufferPointerInfo(buffer).isManaged;
}

/** Plain device memory: the device can use it and the CPU cannot (not pinned, not managed). */
export function bufferIsDeviceOnly(buffer: BufferBase): boolean {
  return bufferIsDeviceAccessible(buffer) && !bufferIsHostAccessible(buffer);
}

/** The device to order work on when no stream is given: the buffer's, else `other`'s, else the current one. */
export function bufferWorkDevice(buffer: BufferBase, other: BufferBase | null): number {
  const own = bufferDeviceId(buffer);
  if (own >= 0) return own;
  if (other !== null) {
    const others = bufferDeviceId(other);
    if (others >= 0) return others;
  }
  return runtimeOf(buffer).currentDevice;
}

// A Buffer owner answers from its state; any other owner through its own `isClosed`.
function ownerIsClosed(owner: unknown): boolean {
  if (hasBufferState(owner as object)) return bufferIsClosed(owner as BufferBase);
  return (owner as { isClosed?: unknown }).isClosed === true;
}

/** The Buffer an owner stands for: itself, or what it exposes under {@link ownerMemoryBuffer}. */
function bufferOfOwnerObject(owner: unknown): BufferBase | null {
  if (bufferBrand.has(owner)) return owner;
  const held = (owner as { [ownerMemoryBuffer]?: unknown })[ownerMemoryBuffer];
  return bufferBrand.has(held) ? held : null;
}
