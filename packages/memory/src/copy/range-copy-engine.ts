// Many host ranges to or from one buffer, with the driver calls a C program would make: one
// copy per range straight from memory the copy engine reads where it is (a Buffer's host view,
// registered memory), small pageable ranges gathered into one copy, large pageable ranges
// through the driver's staged copy (buffer-copy.ts's rule), and one wait at the end when the
// caller gave no stream. No events: everything is ordered on one stream.
import { viewBuffer, viewByteLength, viewByteOffset } from '@cumem/core-types';
import type { Buffer } from '../buffer/buffer.js';
import { bufferState } from '../buffer/buffer-base.js';
import { directHostCopy, isPageable, staged, stagedHostCopy } from '../buffer/buffer-copy.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';

/** One range of a many-range copy: `bytes` (JS memory) at `offset` bytes into the buffer. */
export interface HostRange {
  /** Bytes from the start of the buffer. */
  readonly offset: number;
  /** The JS memory, copied whole. */
  readonly bytes: ArrayBufferView;
}

/**
 * How pageable ranges of an upload move:
 * - `'auto'` (default): ranges of `stagingSettings().minBytes` or more through the driver's
 *   staged copy (pinned chunks on native threads), the rest copied from where they are (ranges
 *   under 256 KiB that continue each other gathered into one copy first);
 * - `'pinned'`: every pageable range through the driver's staged copy;
 * - `'pageable'`: every range copied from where it is (the driver stages pageable memory itself);
 * - a host-accessible Buffer (pinned memory): pageable ranges are copied into it and from there,
 *   waiting for the stream only when it must be refilled (as large as the pageable bytes: never).
 * Page-locked ranges (a Buffer's host view, registered memory) are always copied from where they are.
 */
export type HostStaging = 'auto' | 'pinned' | 'pageable' | HostStagingBuffer;

/**
 * What the engine needs of a staging Buffer (host-accessible): its host view. Only a Buffer of
 * @cumem/memory gets here (host-range-copies.ts checks the brand), and its view is taken through
 * Buffer's own method, not the object's `hostView`.
 */
export interface HostStagingBuffer {
  hostView(): Uint8Array;
}

/** Ranges under this many bytes that continue each other are gathered into one copy. */
export const gatherBytes = 256 * 1024;

/** One direction's driver calls: `offset` is relative to the buffer's first byte. */
interface Mover {
  direct(offset: number, view: ArrayBufferView): void;
  staged(offset: number, view: ArrayBufferView): void;
}

function moverFor(
  runtime: DriverRuntime,
  base: bigint,
  deviceOnly: boolean,
  handle: bigint,
  upload: boolean,
): Mover {
  const driver = runtime.driver;
  return {
    direct: (offset, view) => directHostCopy(driver, upload, deviceOnly, base + BigInt(offset), view, handle),
    staged: (offset, view) => stagedHostCopy(driver, upload, base + BigInt(offset), view, handle),
  };
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return view instanceof Uint8Array
    ? view
    : new Uint8Array(viewBuffer(view), viewByteOffset(view), viewByteLength(view));
}

/**
 * Copies that continue each other in the buffer and in one ArrayBuffer become one (columns
 * allocated back to back); with `gather`, small pieces that continue each other in the buffer
 * are collected and joined by one CPU copy at flush (cheaper than a driver call each; joined
 * once, so many tiny pieces cost linear time).
 */
class Merger {
  #offset = 0;
  #length = 0;
  #parts: Uint8Array[] = [];

  constructor(private readonly send: (offset: number, view: Uint8Array) => void) {}

  push(offset: number, view: Uint8Array, gather: boolean): void {
    const parts = this.#parts;
    if (parts.length > 0 && offset === this.#offset + this.#length) {
      if (gather && this.#length + viewByteLength(view) <= gatherBytes) {
        parts.push(view);
        this.#length += viewByteLength(view);
        return;
      }
      const last = parts[0]!;
      if (
        !gather &&
        parts.length === 1 &&
        viewBuffer(last) === viewBuffer(view) &&
        viewByteOffset(view) === viewByteOffset(last) + viewByteLength(last)
      ) {
        parts[0] = new Uint8Array(
          viewBuffer(last),
          viewByteOffset(last),
          viewByteLength(last) + viewByteLength(view),
        );
        this.#length += viewByteLength(view);
        return;
      }
    }
    this.flush();
    this.#offset = offset;
    this.#length = viewByteLength(view);
    parts.push(view);
  }

  flush(): void {
    const parts = this.#parts;
    if (parts.length === 0) return;
    let view = parts[0]!;
    if (parts.length > 1) {
      view = new Uint8Array(this.#length);
      let at = 0;
      for (const part of parts) {
        view.set(part, at);
        at += viewByteLength(part);
      }
    }
    parts.length = 0;
    this.send(this.#offset, view);
  }
}

/**
 * Moves every range between JS memory and the buffer at `base` on `stream` (the caller checked
 * the ranges, made the stream's device current and resolved the stream). `deviceOnly`: plain
 * device memory. Returns the JS memory the stream must hold until it has passed it.
 */
export function moveRanges(
  runtime: DriverRuntime,
  base: bigint,
  deviceOnly: boolean,
  ranges: readonly HostRange[],
  stream: Stream,
  upload: boolean,
  staging: HostStaging,
): ArrayBufferView[] {
  const mover = moverFor(runtime, base, deviceOnly, stream.streamHandle, upload);
  const held: ArrayBufferView[] = [];
  const send = (offset: number, view: ArrayBufferView): void => {
    mover.direct(offset, view);
    held.push(view);
  };
  const stagedLater: HostRange[] = [];
  // Page-locked copies are queued after every pageable one: the driver may wait for the stream
  // before it stages a pageable copy, and must not wait behind a large DMA it could overlap.
  const pinnedLater: [number, Uint8Array][] = [];
  const pinned = new Merger((offset, view) => pinnedLater.push([offset, view]));
  const small = new Merger(send);
  const minBytes = staging === 'pinned' ? 0 : staging === 'pageable' ? Number.POSITIVE_INFINITY : undefined;
  const viaBuffer: HostRange[] = [];
  for (const range of ranges) {
    const view = range.bytes;
    if (viewByteLength(view) === 0) continue;
    const pageable = isPageable(view);
    if (!pageable) pinned.push(range.offset, bytesOf(view), false);
    else if (typeof staging === 'object') viaBuffer.push(range);
    // Partly registered memory is never handed to the driver as one range: staged() stages it.
    else if (staged(bytesOf(view), deviceOnly, minBytes)) stagedLater.push(range);
    else if (upload && viewByteLength(view) < gatherBytes) small.push(range.offset, bytesOf(view), true);
    else send(range.offset, view);
  }
  small.flush();
  pinned.flush();
  for (const [offset, view] of pinnedLater) send(offset, view);
  if (viaBuffer.length > 0 && typeof staging === 'object') {
    moveThroughBuffer(
      runtime,
      stream,
      viaBuffer,
      bytesOf(bufferState(staging as Buffer).hostView()),
      mover,
      upload,
    );
  }
  // A staged copy waits for the stream and is complete on return: last, after the queued work.
  for (const range of stagedLater) mover.staged(range.offset, range.bytes);
  return held;
}

/** Pageable ranges through the caller's pinned `window`, waiting for the stream before each refill. */
function moveThroughBuffer(
  runtime: DriverRuntime,
  stream: Stream,
  ranges: readonly HostRange[],
  window: Uint8Array,
  mover: Mover,
  upload: boolean,
): void {
  if (viewByteLength(window) === 0) throw new RangeError('the staging buffer is empty');
  const pending: (() => void)[] = [];
  let fill = 0;
  const drain = (): void => {
    runtime.driver.streamSynchronize(stream.streamHandle);
    for (const done of pending) done();
    pending.length = 0;
    fill = 0;
  };
  for (const range of ranges) {
    const bytes = bytesOf(range.bytes);
    for (let at = 0; at < viewByteLength(bytes); ) {
      if (fill === viewByteLength(window)) drain();
      const take = Math.min(viewByteLength(window) - fill, viewByteLength(bytes) - at);
      const part = window.subarray(fill, fill + take);
      const piece = bytes.subarray(at, at + take);
      if (upload) part.set(piece);
      else pending.push(() => piece.set(part));
      mover.direct(range.offset + at, part);
      fill += take;
      at += take;
    }
  }
  if (!upload) drain();
}
