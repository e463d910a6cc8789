// copyBatch: many buffer-to-buffer copies, one operation (cuMemcpyBatchAsync or a loop of
// cuMemcpyAsync, whichever was timed faster on the device for the size class: batch-timing.ts);
// @cumem/memory issues the calls.
import { checkSize, type Driver, describeValue } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { bufferByteSize, copyDeviceRanges, driverOf } from '@cumem/memory/internal';
import { type BatchOptions, checkBatchOptions, checkBufferArray } from './batch-arguments.js';
import { BufferListCheck } from './batch-buffer-check.js';
import { chooseBatchStrategy } from './batch-strategy.js';
import { beginMeasuredBatch } from './batch-timing.js';
import { allReachable, copyPairsAcrossDevices, crossesDevices } from './cross-device.js';
import { type RangeScratch, releaseScratch, takeScratch } from './range-scratch.js';
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
  checkBufferArray(dsts, 'dsts');
  checkBufferArray(srcs, 'srcs');
  // Each length read once: what the pass checks is what the scratch was sized for.
  const count = dsts.length;
  const srcCount = srcs.length;
  if (count !== srcCount) {
    throw new RangeError(`dsts has ${count} buffers and srcs ${srcCount}: pair them one to one`);
  }
  const request: PairRequest = {
    count,
    dsts,
    srcs,
    sizes: checkSizes(sizes, count),
    driver,
    dstMemories: [],
    srcMemories: [],
  };
  const checkedOptions = checkBatchOptions(options);
  const strategy = chooseBatchStrategy(driver, 'copy', checkedOptions.strategy, checkedOptions.requireBatch);
  if (count === 0) return;
  const scratch = takeScratch();
  try {
    // Every element is read once, checked and its range recorded in one pass; nothing reaches
    // the driver before the pass ends (a bad element anywhere throws first).
    scratch.reset(count);
    const bytes = checkPairs(request, scratch, checkedOptions.coalesce, undefined);
    const ordinal = openStream.device.ordinal;
    const { dstMemories, srcMemories } = request;
    if (crossesDevices(ordinal, dstMemories) || crossesDevices(ordinal, srcMemories)) {
      // Ends on another device: ordinary copies when its pools let the stream's device in, else one peer copy per pair.
      if (!allReachable(openStream, dstMemories, true) || !allReachable(openStream, srcMemories, false)) {
        copyAcrossDevices(openStream, request);
        return;
      }
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
    else scratch.unpackPointers(true);
    copyDeviceRanges(
      openStream,
      scratch,
      timing.kind === 'loop'
        ? { kind: 'loop' }
        : { kind: 'batch', chunkSize: checkedOptions.chunkSize ?? strategy.chunkSize },
    );
    timing.end();
  } finally {
    releaseScratch(scratch);
  }
}

/** The arguments of one copyBatch, arrays checked, elements not yet. */
interface PairRequest {
  /** Pairs to check: the arrays' length as first read (a Proxy's length may change later). */
  readonly count: number;
  readonly dsts: readonly unknown[];
  readonly srcs: readonly unknown[];
  /** Checked sizes: undefined = each pair's whole (equal) size. */
  readonly sizes: number | readonly number[] | undefined;
  readonly driver: Driver;
  /** One buffer per distinct memory of each side (BufferListCheck's `memories`). */
  readonly dstMemories: Buffer[];
  readonly srcMemories: Buffer[];
}

/** The checked pairs of a copy whose ends the stream's device cannot all reach. */
interface CheckedPairs {
  readonly dsts: Buffer[];
  readonly srcs: Buffer[];
  readonly sizes: number[];
}

const dstCheck = new BufferListCheck();
const srcCheck = new BufferListCheck();

/**
 * Checks every pair of `request` and records each copy of more than 0 bytes, into `scratch`
 * (coalesced when `coalesce`) or, when `pairs` is given, as its two buffers and size.
 * @returns the bytes recorded.
 * @throws as {@link copyBatch}, naming the element.
 */
function checkPairs(
  request: PairRequest,
  scratch: RangeScratch | undefined,
  coalesce: boolean,
  pairs: CheckedPairs | undefined,
): number {
  const { count, dsts, srcs, sizes } = request;
  // Re-entered (a getter the checks run, such as a fromHandle owner's isClosed, called
  // copyBatch): the outer call's checkers are in use, so this call takes fresh ones.
  const reentered = dstCheck.busy;
  const dstChecks = reentered ? new BufferListCheck() : dstCheck;
  const srcChecks = reentered ? new BufferListCheck() : srcCheck;
  dstChecks.begin('dsts', false, request.driver, pairs === undefined ? request.dstMemories : undefined);
  srcChecks.begin('srcs', false, request.driver, pairs === undefined ? request.srcMemories : undefined);
  try {
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const dst = dstChecks.check(dsts[i], i);
      const src = srcChecks.check(srcs[i], i);
      const dstSize = bufferByteSize(dst);
      const srcSize = bufferByteSize(src);
      let size: number;
      if (sizes === undefined) {
        if (dstSize !== srcSize) {
          throw new RangeError(
            `dsts[${i}] has ${dstSize} bytes and srcs[${i}] ${srcSize}: pass sizes to copy part of them`,
          );
        }
        size = srcSize;
      } else {
        size = typeof sizes === 'number' ? sizes : sizes[i]!;
        if (size > dstSize || size > srcSize) {
          throw new RangeError(
            `copy ${i} of ${size} bytes is past the end of the ${size > dstSize ? 'destination' : 'source'} (${Math.min(dstSize, srcSize)} bytes)`,
          );
        }
      }
      if (size === 0) continue;
      if (pairs !== undefined) {
        pairs.dsts.push(dst);
        pairs.srcs.push(src);
        pairs.sizes.push(size);
      } else (scratch as RangeScratch).pushCopy(dst, src, size, coalesce);
      bytes += size;
    }
    dstChecks.recheck();
    srcChecks.recheck();
    return bytes;
  } finally {
    dstChecks.end();
    srcChecks.end();
  }
}

/**
 * Copies each pair on its own through the peer path. The arrays are read and checked again
 * (into arrays of this call's own, all before the first copy): the fast pass kept ranges, not
 * buffers, and a caller's array may answer differently on a second read.
 */
function copyAcrossDevices(stream: Stream, request: PairRequest): void {
  const pairs: CheckedPairs = { dsts: [], srcs: [], sizes: [] };
  checkPairs(request, undefined, false, pairs);
  copyPairsAcrossDevices(stream, pairs.dsts, pairs.srcs, (i) => pairs.sizes[i]!, pairs.sizes.length);
}

/** Checked sizes: undefined, one number for every pair, or an array of `count` numbers (a copy). */
function checkSizes(sizes: unknown, count: number): number | readonly number[] | undefined {
  if (sizes === undefined) return undefined;
  if (typeof sizes === 'number') return checkSize(sizes, 'sizes');
  if (!Array.isArray(sizes))
    throw new TypeError(`sizes must be a number or an array of numbers, got ${describeValue(sizes)}`);
  if (sizes.length !== count) throw new RangeError(`sizes has ${sizes.length} entries for ${count} copies`);
  const checked = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const size: unknown = sizes[i];
    // The element's name is built only for the error (a string per element costs more than the test).
    checked[i] =
      typeof size === 'number' && Number.isSafeInteger(size) && size >= 0
        ? size
        : checkSize(size, `sizes[${i}]`);
  }
  return checked;
}
