// What a Buffer is (its pointer, size, owner chain and state bits) lives in private fields, so
// that no JavaScript can read or rewrite it and no imitation has it (issue 21). The fields are
// BufferState's, stamped onto the buffer by BufferBase's constructor, not BufferBase's own: on
// Node 20's V8 a super() call into a class with instance fields, private or public, is never
// inlined (TurboFan gives up on FindNonDefaultConstructorOrConstruct for such a class), which
// cost ~35 ns of each allocate + close (bench/js/allocate-close-parts.mjs, `bufferObject`), a
// fifth of @cumem/memory's share. BufferState is only ever constructed directly, around the
// object its base constructor returns, and no class a Buffer is made through declares fields.
// Private fields stamped this way are as private as declared ones: only this module can add or
// read them, and they are neither inherited nor seen through a Proxy. What only slices and
// wrappers have (parent, owner, cached pointer attributes) shares one field, null on every
// allocated buffer: two stores and 16 bytes less per allocate (issue 26). For a slice that field
// holds its parent itself (a slice's owner is its parent, and its pointer attributes are the
// parent's), so that reading a slice's parent reads one object, not two: @cumem/utils' batch
// checks read it for each of thousands of slices per call, mostly from memory the driver call of
// the call before evicted from the CPU's caches (bench/js/copy-batch-gap.mjs).

import type { MemoryResource } from '../resources/memory-resource.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import type { BufferBase } from './buffer-base.js';
import type { ReleaseRecord } from './buffer-release.js';
import type { ViewList } from './host-views.js';
import type { PointerInfo } from './pointer-info.js';

/**
 * @internal What a wrapper (`Buffer.fromHandle` without `mr`) keeps beside its state: the object
 * that keeps its memory alive, and what the driver said of the memory (pointer attributes,
 * asked once). A buffer a resource allocated has none (null: one private field instead of
 * three, the fewer stores and bytes on allocate's hot path), and a slice has its parent there.
 */
export class BufferOrigin {
  info: PointerInfo | undefined = undefined;
  constructor(readonly owner: unknown) {}
}

/** A base constructor that returns the object given: the subclass's fields are added to it. */
class ReturnsTarget {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the return override stamps fields onto `target`
    return target;
  }
}

/**
 * @internal Constructed (`new BufferState(buffer, ...)`) only in BufferBase's constructor, where
 * it gives the new buffer its private facts; its static members read and write them, and throw
 * a TypeError for an object it did not stamp (an imitation). buffer-base.ts keeps them in
 * constants of its own: a call through an imported binding costs ~1 ns more per read on Node 20.
 */
export class BufferState extends ReturnsTarget {
  // The facts a batch check reads of every element come first, in this order, so that they lie
  // together in the object (V8 lays fields out in the order a constructor adds them): one cache
  // line, where they were spread over two.
  #flags: number;
  // Null for a buffer with a resource and neither parent nor owner (every allocated one); a
  // slice's parent (itself a Buffer) for a slice.
  readonly #origin: BufferOrigin | BufferBase | null;
  #byteSize: number;
  readonly #pointer: bigint;
  readonly #runtime: DriverRuntime;
  readonly #resource: MemoryResource | null;
  readonly #allocationStream: Stream | undefined;
  // The host views handed out over memory this buffer owns (detached on close); null until the
  // first one, so a buffer that never made a view pays nothing on allocate and close.
  #views: ViewList | null;
  // The finalizer's record once the buffer outlived its batch (buffer-release.ts); close()
  // cancels it. Private as the rest: a rewritten list or record let close() free memory that
  // host views still read, or leave a finalizer to free it a second time.
  #releaseRecord: ReleaseRecord | null;

  constructor(
    target: BufferBase,
    runtime: DriverRuntime,
    pointer: bigint,
    size: number,
    resource: MemoryResource | null,
    stream: Stream | undefined,
    flags: number,
    origin: BufferOrigin | BufferBase | null,
  ) {
    super(target);
    this.#flags = flags;
    this.#origin = origin;
    this.#byteSize = size;
    this.#pointer = pointer;
    this.#runtime = runtime;
    this.#resource = resource;
    this.#allocationStream = stream;
    this.#views = null;
    this.#releaseRecord = null;
  }

  static has(value: object): boolean {
    return #pointer in value;
  }
  static runtime(buffer: BufferBase): DriverRuntime {
    return (buffer as unknown as BufferState).#runtime;
  }
  static pointer(buffer: BufferBase): bigint {
    return (buffer as unknown as BufferState).#pointer;
  }
  static byteSize(buffer: BufferBase): number {
    return (buffer as unknown as BufferState).#byteSize;
  }
  static setByteSize(buffer: BufferBase, size: number): void {
    (buffer as unknown as BufferState).#byteSize = size;
  }
  static resource(buffer: BufferBase): MemoryResource | null {
    return (buffer as unknown as BufferState).#resource;
  }
  static allocationStream(buffer: BufferBase): Stream | undefined {
    return (buffer as unknown as BufferState).#allocationStream;
  }
  static parent(buffer: BufferBase): BufferBase | null {
    const origin = (buffer as unknown as BufferState).#origin;
    if (origin === null) return null;
    return #pointer in origin ? (origin as BufferBase) : null;
  }
  static ownerObject(buffer: BufferBase): unknown {
    const origin = (buffer as unknown as BufferState).#origin;
    if (origin === null) return null;
    return #pointer in origin ? origin : (origin as BufferOrigin).owner;
  }
  static flags(buffer: BufferBase): number {
    return (buffer as unknown as BufferState).#flags;
  }
  static addFlags(buffer: BufferBase, bits: number): void {
    (buffer as unknown as BufferState).#flags |= bits;
  }
  static views(buffer: BufferBase): ViewList | null {
    return (buffer as unknown as BufferState).#views;
  }
  static setViews(buffer: BufferBase, views: ViewList | null): void {
    (buffer as unknown as BufferState).#views = views;
  }
  static releaseRecord(buffer: BufferBase): ReleaseRecord | null {
    return (buffer as unknown as BufferState).#releaseRecord;
  }
  static setReleaseRecord(buffer: BufferBase, record: ReleaseRecord | null): void {
    (buffer as unknown as BufferState).#releaseRecord = record;
  }
  /** The cached pointer attributes of a wrapper; undefined for a slice (its parent's are asked). */
  static info(buffer: BufferBase): PointerInfo | undefined {
    const origin = (buffer as unknown as BufferState).#origin;
    return origin === null || #pointer in origin ? undefined : (origin as BufferOrigin).info;
  }
  /** Caches `info` for a wrapper (`fromHandle` without mr); a slice keeps none of its own. */
  static setInfo(buffer: BufferBase, info: PointerInfo): void {
    const origin = (buffer as unknown as BufferState).#origin;
    if (origin !== null && !(#pointer in origin)) (origin as BufferOrigin).info = info;
  }
}

/**
 * Sets the size of a buffer whose allocation a `VirtualMemoryResource` grew or shrank in place:
 * the one writer of that private fact, for @cumem/memory's own modules (not exported by the package).
 */
export const setResizedByteSize: (buffer: BufferBase, size: number) => void = BufferState.setByteSize;
