// Many device<->device copies on one stream (utils' copyBatch after its checks): per-range
// cuMemcpyAsync, or cuMemcpyBatchAsync over chunks of ranges. The caller chose which (a
// measured strategy) and checked every range against its buffers; this file issues the calls.
import { bindStreamDriver } from '../runtime/object-driver.js';
import type { Stream } from '../stream/stream.js';

/** Ranges for i < count, as the per-range calls take them and packed for the batch entry point. */
export interface DeviceRanges {
  readonly count: number;
  /** Destination addresses. */
  readonly pointers: readonly bigint[];
  /** Source addresses. */
  readonly sources: readonly bigint[];
  /** Bytes per range. */
  readonly sizes: readonly number[];
  /** The same ranges packed (at least `count` entries each); read only for `'batch'`. */
  readonly packedPointers: BigUint64Array;
  readonly packedSources: BigUint64Array;
  readonly packedSizes: BigUint64Array;
}

/** `'loop'`: one `cuMemcpyAsync` per range; `'batch'`: one `cuMemcpyBatchAsync` per `chunkSize` ranges. */
export type DeviceRangeCalls =
  | { readonly kind: 'loop' }
  | { readonly kind: 'batch'; readonly chunkSize: number };

/**
 * Enqueues every range's copy on `stream` (asynchronous), with the stream's device current.
 *
 * **Unsafe:** the addresses and sizes go to the driver unchecked (no bounds, owner or lifetime
 * checks); the caller (utils' copyBatch) validated them against open buffers of the stream's
 * driver. For sibling packages only.
 */
export function copyDeviceRanges(stream: Stream, ranges: DeviceRanges, calls: DeviceRangeCalls): void {
  const count = ranges.count;
  if (count === 0) return;
  const driver = bindStreamDriver(stream);
  const handle = stream.handle;
  if (calls.kind === 'loop') {
    const { pointers, sources, sizes } = ranges;
    for (let i = 0; i < count; i++) driver.memcpyAsync(pointers[i]!, sources[i]!, sizes[i]!, handle);
    return;
  }
  const { packedPointers, packedSources, packedSizes } = ranges;
  const chunk = Math.max(1, calls.chunkSize);
  for (let from = 0; from < count; from += chunk) {
    const to = Math.min(count, from + chunk);
    const whole = from === 0 && to === count;
    driver.memcpyBatchAsync(
      whole ? packedPointers : packedPointers.subarray(from, to),
      whole ? packedSources : packedSources.subarray(from, to),
      whole ? packedSizes : packedSizes.subarray(from, to),
      to - from,
      handle,
    );
  }
}
