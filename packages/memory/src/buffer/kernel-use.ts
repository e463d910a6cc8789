// Buffers whose memory queued kernel work may still use (@cumem/compute's launch records them),
// so that closing one right after the launch cannot hand its memory to another allocation while
// the kernel still runs. An explicit close() otherwise frees in the order its caller names (see
// known-streams.ts); for these buffers it frees as a dropped buffer does: after the work queued
// so far on every stream cumem knows, the launch's stream among them.

import type { Stream } from '../stream/stream.js';
import { type BufferBase, bufferBrand, bufferState } from './buffer-base.js';
import type { BufferState } from './buffer-state.js';
import { orderForDroppedBuffer } from './dropped-buffer-order.js';
import type { MemoryResource } from './memory-resource.js';

const used = new WeakSet<BufferBase>();
// False until the first launch: close() then pays one boolean test, not a WeakSet lookup.
let anyUse = false;

/**
 * Records that kernel work queued on a stream reads or writes `buffer`'s memory, for
 * `@cumem/compute`'s `launch`. Closing the buffer that owns the memory (this one, or the buffer
 * it slices or wraps) then frees it only after the work queued so far on every stream cumem
 * knows (the launch's stream included), whatever stream `close()` names; dropping it already
 * does. Costs nothing for buffers no kernel used.
 * @throws TypeError for anything but a Buffer of @cumem/memory.
 */
export function noteKernelUse(buffer: BufferBase): void {
  bufferBrand.check(buffer, 'buffer');
  anyUse = true;
  used.add(bufferState(buffer).memoryOwner);
}

/** The stream close() frees on: `order`, or after all known work when a kernel used the buffer. */
export function closeOrder(buffer: BufferState, order: Stream | undefined): Stream | undefined {
  if (!anyUse || !used.has(buffer.buffer)) return order;
  return orderForDroppedBuffer(buffer.runtime, buffer.resource as MemoryResource, order);
}
