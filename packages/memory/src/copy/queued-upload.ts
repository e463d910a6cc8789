// Uploads queued ahead of the rest of a call: @cumem/interop-arrow's tableToDevice starts the
// copies of column bodies whose place in the stream it already knows, then runs Arrow JS's
// writer while they move, then writes the rest with copyRangesFromHost, which waits for the
// same stream and so for these copies too.

import type { Buffer } from '../buffer/buffer.js';
import { bufferState } from '../buffer/buffer-base.js';
import { isPageable } from '../buffer/buffer-copy.js';
import type { Stream } from '../stream/stream.js';
import { copyRangesFromHost, type HostRange, rangeCopyStream } from './host-range-copies.js';

/** `dst`'s range-copy stream, once `dst` is known open. */
function defaultStreamOf(dst: Buffer): Stream {
  bufferState(dst).checkOpen();
  return rangeCopyStream(dst);
}

/**
 * Queues the copies of `ranges` into `dst` on the stream a later `copyRangesFromHost(dst, ...)`
 * without a stream uses, and returns at once: that later call (or {@link waitForQueuedUploads})
 * returns only after these copies are done too. All or nothing: when any range is pageable
 * (it would be copied before returning, which gains nothing), none is queued and this returns
 * false. Checks as copyRangesFromHost does, before any driver call; the stream holds the JS
 * memory until it has passed it. For @cumem/interop-arrow (exported from `@cumem/memory/internal` only).
 */
export function queueUpload(dst: Buffer, ranges: readonly HostRange[]): boolean {
  if (ranges.length === 0) return false;
  for (const range of ranges) if (!ArrayBuffer.isView(range?.bytes) || isPageable(range.bytes)) return false;
  copyRangesFromHost(dst, ranges, { stream: defaultStreamOf(dst) });
  return true;
}

/** Waits for the copies {@link queueUpload} queued into `dst` (when the call that queued them gives up). */
export function waitForQueuedUploads(dst: Buffer): void {
  defaultStreamOf(dst).sync();
}
