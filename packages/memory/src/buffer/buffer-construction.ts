// How a buffer is made: the three construction paths (a resource's allocate, Buffer.fromHandle,
// slice: buffer.ts) and the kinds buffers are made as. Only this module and the kinds it defines
// hand cumem's private construction token to a constructor.
import { checkAddress, checkOptions, checkSize, describeValue } from '@cumem/core-types';
import { noteFinalizerRelease } from '../diagnostics/resource-pressure.js';
import { byteArrayInterfaceOf } from '../interop/byte-array-interface.js';
import { exportTensor } from '../interop/dlpack/dlpack-capsule.js';
import type { IpcBufferDescriptor } from '../interop/ipc/ipc-descriptor.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import type { StreamOrderOptions } from '../stream/stream-options.js';
import { type BufferBase, bufferBrand, bufferState, bufferToken, ownerMemoryBuffer } from './buffer-base.js';
import { exportOwner } from './buffer-export-owner.js';
import { deferRelease } from './buffer-release.js';
import { type BufferKind, BufferState } from './buffer-state.js';
import { orderForDroppedBuffer } from './dropped-buffer-order.js';
import { liveAllocationsOf } from './live-allocations.js';
import { adoptBufferMemory, MemoryResource, releaseBufferMemory } from './memory-resource.js';
import { rangeOverrun } from './pointer-range.js';

/** Options for {@link Buffer.fromHandle}. */
export interface FromHandleOptions {
  /** The resource that owns the memory: `close()` (or GC) calls its `deallocate`. */
  readonly mr?: MemoryResource;
  /**
   * An object kept alive as long as the buffer, which owns the memory instead. When it is a
   * Buffer, or any object with a boolean `isClosed`, the new buffer is closed (and refuses all
   * work) once the owner is; host views taken through it belong to the owner's memory.
   */
  readonly owner?: unknown;
}

/** A class buffers are made as: Buffer, ManagedBuffer or VirtualBuffer. */
interface BufferClass {
  new (token: symbol, state: BufferState): BufferBase;
  readonly prototype: {
    close(options?: StreamOrderOptions): void;
    hostView(): Uint8Array;
    readonly ipcDescriptor: IpcBufferDescriptor;
  };
}

/**
 * @internal The kind of the buffers of `Class` (Buffer, ManagedBuffer, VirtualBuffer): what
 * the resources pass to {@link allocatedBuffer}. Only cumem's own classes are ever given the
 * construction token.
 */
export function defineBufferKind(name: string, Class: BufferClass, recordsSlices: boolean): BufferKind {
  // The class's own members, taken when the class is defined, before any program can replace them.
  const { close, hostView } = Class.prototype;
  const ipcDescriptor = getterOf(Class.prototype, 'ipcDescriptor');
  const kind: BufferKind = {
    name,
    recordsSlices,
    make: (state: BufferState) => new Class(bufferToken, state),
    toDLPack(buffer, options) {
      const state = bufferState(buffer);
      const dtype = { code: 1, bits: 8, lanes: 1 };
      const source = { pointer: state.pointer, shape: [state.size], strides: [1], dtype, readonly: false };
      return exportTensor(
        { ...source, keepAlive: undefined, deviceId: state.deviceId },
        exportOwner(buffer),
        options,
      );
    },
    cudaArrayInterface(buffer) {
      const state = bufferState(buffer);
      return byteArrayInterfaceOf(state, state.pointer, state.size, false);
    },
    close: (buffer, options) => close.call(buffer, options),
    hostView: (buffer) => hostView.call(buffer),
    ipcDescriptor: (buffer) => ipcDescriptor.call(buffer) as IpcBufferDescriptor,
    finalizerRelease,
  };
  return Object.freeze(kind);
}

// A buffer that owns memory outlived its finalizer batch (buffer-release.ts): its pointer joins
// the resource's Set (live-allocations.ts), and the returned function frees the memory if the
// buffer is dropped. It holds the buffer's facts, never the buffer.
function finalizerRelease(state: BufferState): () => void {
  const { runtime, pointer, size, allocationStream } = state;
  const resource = state.resource as MemoryResource;
  liveAllocationsOf(resource)?.settle(pointer);
  return () => {
    // Tell trackers first: the free below would otherwise read as an ordinary close.
    liveAllocationsOf(resource)?.accounting?.finalized(Number(pointer));
    noteFinalizerRelease(size);
    // Work queued on any stream may still use the memory: the free waits for all of it.
    releaseBufferMemory(resource, pointer, size, orderForDroppedBuffer(runtime, resource, allocationStream));
  };
}

// The getter `key` of `prototype` or the nearest prototype above it.
function getterOf(prototype: object, key: string): () => unknown {
  for (let object: object | null = prototype; object !== null; object = Object.getPrototypeOf(object)) {
    const getter = Object.getOwnPropertyDescriptor(object, key)?.get;
    if (getter !== undefined) return getter;
  }
  throw new TypeError(`no getter ${key}`);
}

/** @internal A buffer a resource allocated (it owns the memory). Hot path: no validation. */
export function allocatedBuffer<B extends BufferBase>(
  kind: BufferKind,
  runtime: DriverRuntime,
  pointer: bigint,
  size: number,
  resource: MemoryResource,
  stream: Stream | undefined,
): B {
  const state = BufferState.allocated(kind, resource, runtime, pointer, size, stream);
  const buffer = kind.make(state) as B;
  if (size !== 0) deferRelease(buffer, state);
  return buffer;
}

/**
 * @internal `Buffer.fromHandle` (and `ManagedBuffer.fromHandle`): wraps `size` bytes at
 * `pointer` as a buffer of `kind`. `check` refuses memory the kind cannot wrap, before the
 * buffer owns anything.
 */
export function wrapExternalMemory(
  kind: BufferKind,
  pointer: bigint | number,
  size: number,
  options: FromHandleOptions | undefined,
  check?: (state: BufferState) => void,
): BufferBase {
  const handle = checkAddress(pointer, 'pointer');
  checkSize(size, 'size');
  const { mr, owner } = checkOptions(options, 'Buffer.fromHandle options');
  if (mr !== undefined && !(mr instanceof MemoryResource)) {
    throw new TypeError(`mr must be a MemoryResource, got ${describeValue(mr)}`);
  }
  if (mr !== undefined && owner !== undefined) {
    throw new TypeError(
      'Buffer.fromHandle takes mr or owner, not both: mr frees the memory, owner keeps it alive',
    );
  }
  const runtime = activeRuntime();
  const overrun = rangeOverrun(runtime.driver, handle, size, 'Buffer.fromHandle');
  if (overrun !== undefined) throw overrun;
  const closesWith = mr === undefined ? followedOwner(owner) : null;
  const state = BufferState.wrapped({
    kind,
    runtime,
    pointer: handle,
    size,
    mr: mr ?? null,
    owner: mr === undefined ? (owner ?? null) : null,
    closesWith,
    sharesMemoryOf: closesWith === null ? null : ownerBufferState(owner),
  });
  check?.(state);
  const buffer = kind.make(state);
  if (mr !== undefined && size > 0) {
    adoptBufferMemory(mr, handle, size);
    deferRelease(buffer, state);
  }
  return buffer;
}

// What a wrapper is closed with: a Buffer owner's state, or an owner with a boolean isClosed.
function followedOwner(owner: unknown): { readonly isClosed: unknown } | null {
  if (bufferBrand.has(owner)) return bufferState(owner);
  if (typeof owner !== 'object' && typeof owner !== 'function') return null;
  if (owner === null) return null;
  return typeof (owner as { isClosed?: unknown }).isClosed === 'boolean'
    ? (owner as { isClosed: unknown })
    : null;
}

// The buffer whose memory a followed owner shows: itself, or what it exposes under ownerMemoryBuffer.
function ownerBufferState(owner: unknown): BufferState | null {
  if (bufferBrand.has(owner)) return bufferState(owner);
  const held = (owner as { [ownerMemoryBuffer]?: unknown })[ownerMemoryBuffer];
  return bufferBrand.has(held) ? bufferState(held) : null;
}
