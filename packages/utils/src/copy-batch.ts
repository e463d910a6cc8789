// copyBatch: many buffer-to-buffer copies, one operation (cuMemcpyBatchAsync or a loop of
// cuMemcpyAsync, whichever was timed faster on the device for the size class: batch-timing.ts);
// @cumem/memory issues the calls.
import { checkSize, describeValue } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { copyDeviceRanges, driverOf } from '@cumem/memory/internal';
import { type BatchOptions, checkBatchOptions, checkBuffers } from './batch-arguments.js';
import { chooseBatchStrategy } from './batch-strategy.js';
import { beginMeasuredBatch } from './batch-timing.js';
import { allReachable, copyPairsAcrossDevices, crossesDevices } from './cross-device.js';
import { sharedScratch } from './range-scratch.js';
import { checkStream, driverFor } from './stream-binding.js';

/**
 * Copies `srcs[i]` into `dsts[i]` for every i, ordered on `stream` (asynchronous).
 * @param sizes bytes per copy: omitted = each source's whole size (then each pair's sizes must
 *   be equal); a number = that many bytes from every pair; an array = one size per pair.
 * @throws TypeError (non-arrays, non-Buffers), RangeError (length mismatch, size mismatch, a size
 *   past either buffer), CudaStateError (closed stream or buffer), NotSupportedError
 *   (`requireBatch` without a CUDA 12.8 driver) — all before any driver call.
 */
export function copyBatch(
  stream: Stream,
  dsts: readonly Buffer[],
  srcs: readonly Buffer[],
  sizes?: number | readonly number[],
  options?: BatchOptions,
): void {
  const openStream = checkStream(stream);
  const driver = driverOf(openStream);
  // One buffer per distinct memory of each side: device and reachability are asked of those.
  const dstMemories: Buffer[] = [];
  const srcMemories: Buffer[] = [];
  const destinations = checkBuffers(dsts, 'dsts', false, driver, dstMemories);
  const sources = checkBuffers(srcs, 'srcs', false, driver, srcMemories);
  if (destinations.length !== sources.length) {
    throw new RangeError(
      `dsts has ${destinations.length} buffers and srcs ${sources.length}: pair them one to one`,
    );
  }
  const count = destinations.length;
  const sizeOf = checkSizes(sizes, destinations, sources);
  const checkedOptions = checkBatchOptions(options);
  const strategy = chooseBatchStrategy(driver, 'copy', checkedOptions.strategy, checkedOptions.requireBatch);
  if (count === 0) return;
  const ordinal = openStream.device.ordinal;
  if (crossesDevices(ordinal, dstMemories) || crossesDevices(ordinal, srcMemories)) {
    // Ends on another device: ordinary copies when its pools let the stream's device in, else one peer copy per pair.
    if (!allReachable(openStream, dstMemories, true) || !allReachable(openStream, srcMemories, false)) {
      copyPairsAcrossDevices(openStream, destinations, sources, sizeOf, count);
      return;
    }
  }
  const scratch = sharedScratch;
  scratch.reset(count);
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const size = sizeOf(i);
    if (size === 0) continue;
    scratch.pushCopy(destinations[i]!, sources[i]!, size, checkedOptions.coalesce);
    bytes += size;
  }
  if (scratch.count === 0) return;
  const fallback = strategy.kind === 'loop' ? 'loop' : 'batch';
  const timing = beginMeasuredBatch(
    driverFor(openStream),
    openStream,
    'copy',
    0,
    scratch.count,
    bytes,
    strategy.measured,
    fallback,
  );
  if (timing.kind !== 'loop') scratch.packSizes();
  copyDeviceRanges(
    openStream,
    scratch,
    timing.kind === 'loop'
      ? { kind: 'loop' }
      : { kind: 'batch', chunkSize: checkedOptions.chunkSize ?? strategy.chunkSize },
  );
  timing.end();
}

function checkSizes(sizes: unknown, dsts: readonly Buffer[], srcs: readonly Buffer[]): (i: number) => number {
  const fits = (size: number, i: number) => {
    const dst = dsts[i]!.size;
    const src = srcs[i]!.size;
    if (size > dst || size > src) {
      throw new RangeError(
        `copy ${i} of ${size} bytes is past the end of the ${size > dst ? 'destination' : 'source'} (${Math.min(dst, src)} bytes)`,
      );
    }
  };
  if (sizes === undefined) {
    for (let i = 0; i < dsts.length; i++) {
      if (dsts[i]!.size !== srcs[i]!.size) {
        throw new RangeError(
          `dsts[${i}] has ${dsts[i]!.size} bytes and srcs[${i}] ${srcs[i]!.size}: pass sizes to copy part of them`,
        );
      }
    }
    return (i) => srcs[i]!.size;
  }
  if (typeof sizes === 'number') {
    const size = checkSize(sizes, 'sizes');
    for (let i = 0; i < dsts.length; i++) fits(size, i);
    return () => size;
  }
  if (!Array.isArray(sizes))
    throw new TypeError(`sizes must be a number or an array of numbers, got ${describeValue(sizes)}`);
  if (sizes.length !== dsts.length) {
    throw new RangeError(`sizes has ${sizes.length} entries for ${dsts.length} copies`);
  }
  const checked = sizes.map((size, i) => checkSize(size, `sizes[${i}]`));
  checked.forEach(fits);
  return (i) => checked[i]!;
}
