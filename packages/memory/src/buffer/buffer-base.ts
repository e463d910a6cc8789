// What a buffer is, for programs: BufferBase holds the buffer's state (buffer-state.ts) in a
// private field and shows it through getters. Buffer (buffer.ts) adds what a buffer does. The
// private field is also the brand: only BufferBase's constructor can give it to an object, and it
// is neither inherited nor seen through a Proxy, so every getter and method, which starts by
// reading it through `bufferState`, refuses anything but a real buffer with a TypeError of
// cumem's naming the member.
import type { InspectOptionsStylized, inspect } from 'node:util';
import { hex, inspectCustom, notBranded, objectDescription, wrongReceiver } from '@cumem/core-types';
import type { ByteArrayInterface } from '../interop/byte-array-interface.js';
import type { DLPackCapsule, ToDLPackOptions } from '../interop/dlpack/dlpack-capsule.js';
import { ObjectBrand } from '../runtime/object-brand.js';
import type { BufferState } from './buffer-state.js';
import type { MemoryResource } from './memory-resource.js';

/**
 * @internal The private construction token: only buffer.ts's construction paths (a resource's
 * allocate, fromHandle, slice) hold it, so no caller can build a Buffer around memory it does not own.
 */
export const bufferToken: unique symbol = Symbol('cumem.buffer');

/**
 * @internal The state of `value` when BufferBase's constructor made it, else undefined: the
 * brand test and the read in one, for a caller that takes a buffer or something else (copyFrom's
 * `src`). {@link bufferState} is the form that refuses anything but a buffer.
 */
export let stateIfBuffer: (value: unknown) => BufferState | undefined;

/**
 * The state and accessors every `Buffer` and `ManagedBuffer` share: the type of
 * {@link bufferBrand}'s values. Not constructible on its own; buffers come from memory resources
 * and `Buffer.fromHandle`.
 */
export abstract class BufferBase {
  readonly #state: BufferState;

  // A private name is visible only inside its class: this gives bufferState and the brand to the module.
  static {
    stateIfBuffer = (value) =>
      typeof value === 'object' && value !== null && #state in value
        ? (value as BufferBase).#state
        : undefined;
  }

  /**
   * Not for use: a Buffer comes from a memory resource's `allocate`, {@link Buffer.fromHandle}
   * or {@link Buffer.slice}. Called without cumem's private token (`new Buffer()`), it throws a
   * TypeError naming those.
   */
  protected constructor();
  /** @internal */
  protected constructor(token: symbol, state: BufferState);
  protected constructor(token?: symbol, state?: BufferState) {
    if (token !== bufferToken) {
      throw new TypeError(
        `${new.target.name} has no public constructor: use a memory resource's allocate(), Buffer.fromHandle() or slice() to get one`,
      );
    }
    this.#state = state as BufferState;
    (state as BufferState).buffer = this;
  }

  /** Size in bytes. */
  get size(): number {
    return bufferState(this, 'size').size;
  }

  /** The address (a unified-address pointer). */
  get handle(): bigint {
    return bufferState(this, 'handle').pointer;
  }

  /** The device the memory is on, or -1 for host memory. */
  get deviceId(): number {
    return bufferState(this, 'deviceId').deviceId;
  }

  /** The resource the memory came from (for slices: the parent's), or null for external memory. */
  get memoryResource(): MemoryResource | null {
    return bufferState(this, 'memoryResource').resource;
  }

  /** The object keeping external memory alive (for slices: the parent buffer), or null. */
  get owner(): unknown {
    return bufferState(this, 'owner').owner;
  }

  /** The device can use the memory. */
  get isDeviceAccessible(): boolean {
    return bufferState(this, 'isDeviceAccessible').isDeviceAccessible;
  }

  /**
   * This buffer for other libraries: CUDA Array Interface v3 of a 1-D uint8 array (camelCase,
   * as `StridedMemoryView.from` of @cumem/utils reads it).
   * @throws CudaStateError when closed.
   */
  get cudaArrayInterface(): ByteArrayInterface {
    return bufferState(this, 'cudaArrayInterface').kind.cudaArrayInterface(this);
  }

  /**
   * This buffer as a 1-D uint8 DLPack tensor for native code (see {@link DLPackCapsule}): the
   * memory stays allocated until the consumer calls the deleter, even if this buffer is closed.
   * @throws CudaStateError when closed; TypeError for bad options.
   */
  toDLPack(options?: ToDLPackOptions): DLPackCapsule {
    return bufferState(this, 'toDLPack').kind.toDLPack(this, options);
  }

  /** The CPU can read and write the memory (and {@link Buffer.hostView} works). */
  get isHostAccessible(): boolean {
    return bufferState(this, 'isHostAccessible').isHostAccessible;
  }

  /** The memory is CUDA managed (unified) memory. */
  get isManaged(): boolean {
    return bufferState(this, 'isManaged').isManaged;
  }

  /** The memory was mapped from another process (IPC). */
  get isMapped(): boolean {
    const state = bufferState(this, 'isMapped');
    return state.resource?.mapsAllocationAt(bufferState(state.memoryOwner).pointer) === true;
  }

  /**
   * True after `close()`, once the buffer this one slices is closed, or once the `owner` given
   * to {@link Buffer.fromHandle} (a Buffer, or any object with a boolean `isClosed`) is closed.
   */
  get isClosed(): boolean {
    return bufferState(this, 'isClosed').isClosed;
  }

  // Shown by the name of the buffer's kind (Buffer, ManagedBuffer); an imitation as a Buffer's.
  static readonly #description = objectDescription(
    (value) => stateIfBuffer(value)?.kind.name ?? 'Buffer',
    (value): value is BufferBase => stateIfBuffer(value) !== undefined,
    (buffer) => bufferFacts(buffer.#state),
  );

  /**
   * `Buffer(size: …, device: …, address: 0x…, closed: …)`: what the buffer is, never the
   * driver's state behind it. An object that only looks like a buffer (a Proxy of one, an
   * object inheriting from one) shows as an imitation.
   */
  toString(): string {
    return BufferBase.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link BufferBase.toString}, styled. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, inspectValue: typeof inspect): string {
    return BufferBase.#description.inspect(this, depth, options, inspectValue);
  }
}

// The facts a reader can act on. The device of memory that is not a resource's is asked of the
// driver only while the buffer is open (a closed wrapper's memory may be gone), and a driver that
// cannot answer leaves it unknown: describing a buffer never throws.
function bufferFacts(state: BufferState): Record<string, string | number | boolean> {
  const closed = state.isClosed;
  return { size: state.size, device: deviceText(state, closed), address: hex(state.pointer), closed };
}

function deviceText(state: BufferState, closed: boolean): string | number {
  if (closed && state.resource === null) return 'unknown';
  let device: number;
  try {
    device = state.deviceId;
  } catch {
    return 'unknown';
  }
  return device >= 0 ? device : 'host';
}

/**
 * The state of `buffer`: how every module of cumem reads a buffer, @cumem/memory's own
 * and, through '@cumem/memory/internal', the packages above.
 * @param member the getter or method asking, for the error (`'size'`: "Buffer.size was called on …").
 * @throws TypeError for anything but a Buffer of @cumem/memory (an imitation, a Proxy of one or an
 *   object inheriting from one included).
 */
export function bufferState(buffer: BufferBase, member?: string): BufferState {
  const state = stateIfBuffer(buffer);
  if (state === undefined) throw notABuffer(buffer, member);
  return state;
}

function notABuffer(value: unknown, member: string | undefined): TypeError {
  return member === undefined
    ? notBranded('buffer', 'Buffer of @cumem/memory', value)
    : wrongReceiver('Buffer', member, value);
}

/**
 * The brand of every Buffer and ManagedBuffer: the one test the safe API applies to a value
 * passed as a buffer, here and in the packages above (see object-brand.ts). It reads the private
 * state, which a shaped object, an object inheriting from a Buffer and a Proxy of one lack.
 */
export const bufferBrand: ObjectBrand<BufferBase> = new ObjectBrand<BufferBase>(
  'Buffer of @cumem/memory',
  (value) => stateIfBuffer(value) !== undefined,
);

/**
 * An object given as `owner` to {@link Buffer.fromHandle} may expose, under this symbol, the
 * Buffer holding the memory it shows (interop-arrow's CudaBuffer and HostBuffer do): host views
 * taken through the wrapper are then kept alive with, and detached by, that Buffer's owner.
 */
export const ownerMemoryBuffer: unique symbol = Symbol.for('@cumem/memory.ownerMemoryBuffer');
