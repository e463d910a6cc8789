// copyBatch: many buffer-to-buffer copies, one operation (cuMemcpyBatchAsync or a loop of
// cuMemcpyAsync, whichever the policy measured faster).
import { checkSize, describeValue } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { driverOf } from '@cumem/memory/internal';
import { type BatchOptions, checkBatchOptions, checkBuffers } from './batch-arguments.js';
import { chooseBatchStrategy } from './batch-strategy.js';
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
  const destinations = checkBuffers(dsts, 'dsts', false, driver);
  const sources = checkBuffers(srcs, 'srcs', false, driver);
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
  if (crossesDevices(openStream.device.ordinal, destinations, sources, count)) {
    // Ends on another device: ordinary copies when its pools let the stream's device in, else one peer copy per pair.
    if (
      !allReachable(openStream, destinations, count, true) ||
      !allReachable(openStream, sources, count, false)
    ) {
      copyPairsAcrossDevices(openStream, destinations, sources, sizeOf, count);
      return;
    }
  }
  const scratch = sharedScratch;
  scratch.reset(count);
  for (let i = 0; i < count; i++) {
    const size = sizeOf(i);
    if (size === 0) continue;
    scratch.pushCopy(destinations[i]!, sources[i]!, size, checkedOptions.coalesce);
  }
  if (scratch.count === 0) return;
  const handle = openStream.handle;
  const bound = driverFor(openStream);
  if (strategy.kind === 'loop') {
    const { pointers, sources, sizes } = scratch;
    for (let i = 0; i < scratch.count; i++) bound.memcpyAsync(pointers[i]!, sources[i]!, sizes[i]!, handle);
    return;
  }
  scratch.packSizes();
  const { packedPointers, packedSources, packedSizes } = scratch;
  const chunk = checkedOptions.chunkSize ?? strategy.chunkSize;
  for (let from = 0; from < scratch.count; from += chunk) {
    const to = Math.min(scratch.count, from + chunk);
    const whole = from === 0 && to === scratch.count;
    bound.memcpyBatchAsync(
      whole ? packedPointers : packedPointers.subarray(from, to),
      whole ? packedSources : packedSources.subarray(from, to),
      whole ? packedSizes : packedSizes.subarray(from, to),
      to - from,
      handle,
    );
  }
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
