// A download in pieces, in stream order, that the caller reads as the pieces arrive: what a
// reader that checks a stream's metadata while its body is still in flight needs (interop-arrow's
// tableFromDevice). Every piece is a copyRangesToHost on the buffer's default stream followed by
// an event; waiting for piece i waits for its event, which the stream reaches only after every
// earlier piece (one stream: copies complete in the order they were queued).
import { EventFlags } from '@cumem/core-types';
import type { Buffer } from '../buffer/buffer.js';
import { bufferState } from '../buffer/buffer-base.js';
import { createEvent, type Event } from '../stream/event.js';
import type { Stream } from '../stream/stream.js';
import { copyRangesToHost, type HostRange, rangeCopyStream } from './host-range-copies.js';

/**
 * Pieces of a download queued on one stream. The host memory of every piece is written by the
 * device until {@link QueuedDownload.finish} (or the piece's wait) returns: read a piece only
 * after {@link QueuedDownload.waitFor} of its index.
 */
export interface QueuedDownload {
  /** Number of pieces queued. */
  readonly pieces: number;
  /** Blocks until piece `index` and every piece before it have arrived. */
  waitFor(index: number): void;
  /**
   * Blocks until every piece has arrived (the stream has passed them) and releases the events
   * and the hold on the host memory. Idempotent; call it on every path, errors included.
   */
  finish(): void;
}

class Download implements QueuedDownload {
  readonly #stream: Stream;
  readonly #events: Event[] = [];
  #finished = false;

  constructor(stream: Stream) {
    this.#stream = stream;
  }

  get pieces(): number {
    return this.#events.length;
  }

  queue(src: Buffer, ranges: readonly HostRange[]): void {
    copyRangesToHost(src, ranges, { stream: this.#stream });
    const event = createEvent(this.#stream.runtime, this.#stream.ordinal, EventFlags.DisableTiming);
    this.#events.push(event);
    this.#stream.record(event);
  }

  waitFor(index: number): void {
    if (this.#finished) return;
    const event = this.#events[index];
    if (event === undefined) throw new RangeError(`no piece ${index} of ${this.#events.length}`);
    event.sync();
  }

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    try {
      // Also releases the stream's hold on the host memory of the copies.
      this.#stream.sync();
    } finally {
      for (const event of this.#events) event.close();
    }
  }
}

/**
 * Queues `pieces` (each a list of ranges of `src`, as {@link copyRangesToHost} takes them) in
 * order on `src`'s device's default stream, an event after each, and returns at once. Every
 * argument of every piece is checked before the first copy of that piece; if queuing a piece
 * fails, the pieces already queued are waited for before the error is thrown, so nothing writes
 * into the host memory after this returns or throws unless the returned download is pending.
 * For @cumem/interop-arrow's pipelined reads (exported from `@cumem/memory/internal` only).
 * Host memory should be page-locked for the copies to be asynchronous (pageable memory is
 * copied before the call returns).
 */
export function queueDownload(src: Buffer, pieces: readonly (readonly HostRange[])[]): QueuedDownload {
  bufferState(src).checkOpen();
  const download = new Download(rangeCopyStream(src));
  try {
    for (const ranges of pieces) download.queue(src, ranges);
  } catch (error) {
    try {
      download.finish();
    } catch {
      // The queuing error is the one to report; the stream has been waited on where it could be.
    }
    throw error;
  }
  return download;
}
