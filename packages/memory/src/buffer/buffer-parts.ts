// How a Buffer is made: the private construction token, the constructor's parts and the state
// bits a buffer starts with. BufferBase (buffer-base.ts) holds them; buffer.ts makes buffers.

import type { MemoryResource } from '../resources/memory-resource.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import type { Buffer } from './buffer.js';
import type { BufferBase } from './buffer-base.js';
import type { BufferOrigin } from './buffer-state.js';

/** @internal The buffer frees its memory through its resource. */
export const owns = 1;
/** @internal `close()` ran. */
export const closedFlag = 2;
/** @internal The buffer is registered with the finalizer. */
export const registered = 4;
/** @internal fromHandle's owner is a Buffer or has a boolean isClosed: this buffer is closed when it is. */
export const followsOwner = 8;
/**
 * @internal The buffer was queued in the finalizer batch (buffer-release.ts): until `registered`
 * joins it, an open one is in the batch not yet flushed.
 */
export const batched = 16;
/**
 * @internal The buffer is a ManagedBuffer: its slices are ManagedBuffers too, and messages name
 * that class. A fact of its state, not of its prototype (which a program can change).
 */
export const managedClass = 32;
/**
 * @internal The buffer is a VirtualMemoryResource's (VirtualBuffer): its slices are recorded with
 * the resource (see virtual-buffer.ts), whichever `slice` method a program calls.
 */
export const virtualClass = 64;
/**
 * @internal The private construction token: only buffer.ts (allocatedBuffer, fromHandle, slice)
 * holds it, so no caller can build a Buffer around memory it does not own.
 */
export const bufferToken: unique symbol = Symbol('cumem.buffer');

/** @internal What the private constructor of Buffer and ManagedBuffer takes. */
export type BufferParts = [
  token: symbol,
  runtime: DriverRuntime,
  handle: bigint,
  size: number,
  resource: MemoryResource | null,
  stream: Stream | undefined,
  flags: number,
  // A wrapper's owner and cached pointer attributes, a slice's parent, or null (allocated buffers).
  origin: BufferOrigin | BufferBase | null,
];

/** @internal The constructor signature shared by Buffer and ManagedBuffer. */
export type BufferClass<B extends Buffer> = new (...parts: BufferParts) => B;

/** @internal What a VirtualMemoryResource is told of each slice of its buffers (virtual-memory-resource.ts). */
export interface SliceRecorder {
  noteSlice(slice: Buffer): void;
}
