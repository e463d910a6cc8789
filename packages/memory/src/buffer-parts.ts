// How a Buffer is made: the private construction token, the constructor's parts and the state
// bits a buffer starts with. BufferBase (buffer-base.ts) holds them; buffer.ts makes buffers.

import type { Buffer } from './buffer.js';
import type { BufferOrigin } from './buffer-state.js';
import type { DriverRuntime } from './driver-runtime.js';
import type { MemoryResource } from './memory-resource.js';
import type { Stream } from './stream.js';

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
  // Parent and owner (and cached pointer attributes); null for a buffer with a resource and neither.
  origin: BufferOrigin | null,
];

/** @internal The constructor signature shared by Buffer and ManagedBuffer. */
export type BufferClass<B extends Buffer> = new (...parts: BufferParts) => B;
