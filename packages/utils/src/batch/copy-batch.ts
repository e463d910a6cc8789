// copyBatch: many buffer-to-buffer copies, one operation (cuMemcpyBatchAsync or a loop of
// cuMemcpyAsync, as batch-rule.ts says); @cumem/memory issues the calls.
import { checkSize, type Driver, describeValue } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { bufferState, copyDeviceRanges, driverOf } from '@cumem/memory/internal';
import { checkStream } from '../stream-binding.js';
import { allocationOf } from './allocation-identity.js';
import { type BatchOptions, checkBatchOptions, checkBufferArray } from './batch-arguments.js';
import { BufferListCheck } from './batch-buffer-check.js';
import { batchForm, planBatch } from './batch-rule.js';
import { allReachable, copyPairsAcrossDevices, crossesDevices } from './cross-device.js';
import { addressAt, type RangeScratch, releaseScratch, takeScratch, writeSize } from './range-scratch.js';

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
  const plan = planBatch(driver, 'copy', checkedOptions.strategy, checkedOptions.requireBatch);
  if (count === 0) return;
  const scratch = takeScratch();
  try {
    // Every element is read once, checked and its range recorded in one pass; nothing reaches
    // the driver before the pass ends (a bad element anywhere throws first).
    scratch.reset(count);
    packPairs(request, scratch, checkedOptions.coalesce);
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
    const form = batchForm(plan, 'copy', 'any', scratch.count);
    if (form === 'loop') scratch.unpackCopies();
    copyDeviceRanges(
      openStream,
      scratch,
      form === 'loop'
        ? { kind: 'loop' }
        : { kind: 'batch', chunkSize: checkedOptions.chunkSize ?? Number.POSITIVE_INFINITY },
    );
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
 * The element checkers of one pass over the pairs, begun (memories recorded when `record`):
 * the shared ones, or fresh ones when re-entered (a getter the checks run, such as a
 * fromHandle owner's isClosed, called copyBatch while the outer call's are in use).
 */
function beginChecks(request: PairRequest, record: boolean): [BufferListCheck, BufferListCheck] {
  const reentered = dstCheck.busy;
  const dstChecks = reentered ? new BufferListCheck() : dstCheck;
  const srcChecks = reentered ? new BufferListCheck() : srcCheck;
  dstChecks.begin('dsts', false, request.driver, record ? request.dstMemories : undefined);
  srcChecks.begin('srcs', false, request.driver, record ? request.srcMemories : undefined);
  return [dstChecks, srcChecks];
}

/**
 * The bytes pair `i` copies: `sizes` (undefined: the source's whole size, which must be the
 * destination's; a number or a number per pair: at most either buffer's size).
 * @throws RangeError naming the pair.
 */
function pairSize(dst: Buffer, src: Buffer, sizes: PairRequest['sizes'], i: number): number {
  const dstSize = bufferState(dst).size;
  const srcSize = bufferState(src).size;
  if (sizes === undefined) {
    if (dstSize !== srcSize) {
      throw new RangeError(
        `dsts[${i}] has ${dstSize} bytes and srcs[${i}] ${srcSize}: pass sizes to copy part of them`,
      );
    }
    return srcSize;
  }
  const size = typeof sizes === 'number' ? sizes : sizes[i]!;
  if (size > dstSize || size > srcSize) {
    throw new RangeError(
      `copy ${i} of ${size} bytes is past the end of the ${size > dstSize ? 'destination' : 'source'} (${Math.min(dstSize, srcSize)} bytes)`,
    );
  }
  return size;
}

/**
 * Checks every pair of `request` and packs each copy of more than 0 bytes into `scratch`'s lists
 * (addresses and sizes as the batch entry point reads them), extending the previous copy when
 * `coalesce` is set and both ends continue it within their allocations. Checking and packing
 * share one loop, so each element is read once.
 * @throws as {@link copyBatch}, naming the element.
 */
function packPairs(request: PairRequest, scratch: RangeScratch, coalesce: boolean): void {
  const { count, dsts, srcs, sizes } = request;
  const [dstChecks, srcChecks] = beginChecks(request, true);
  try {
    const { values: dstValues, halves: dstHalves } = scratch.copyDestinations;
    const { values: srcValues, halves: srcHalves } = scratch.copySources;
    const sizeHalves = scratch.copySizes.halves;
    let packed = 0;
    // The copy being extended: where its ends stop (as Numbers: no BigInt arithmetic per pair),
    // its size, a buffer of each end, and their allocations once a pair touches it.
    let lastEnd = -1;
    let lastSourceEnd = -1;
    let runSize = 0;
    let runDst: Buffer | undefined;
    let runSrc: Buffer | undefined;
    let runDstAllocation: Buffer | undefined;
    let runSrcAllocation: Buffer | undefined;
    for (let i = 0; i < count; i++) {
      const dst = dstChecks.check(dsts[i], i);
      const src = srcChecks.check(srcs[i], i);
      const size = pairSize(dst, src, sizes, i);
      if (size === 0) continue;
      dstValues[packed] = bufferState(dst).pointer;
      srcValues[packed] = bufferState(src).pointer;
      const to = addressAt(dstHalves, packed);
      const from = addressAt(srcHalves, packed);
      let continues = false;
      if (
        coalesce &&
        to === lastEnd &&
        from === lastSourceEnd &&
        to <= Number.MAX_SAFE_INTEGER &&
        from <= Number.MAX_SAFE_INTEGER
      ) {
        // Both ends touch the copy before: it continues only within both its allocations (rare,
        // and the allocations are asked once per copy).
        runDstAllocation ??= allocationOf(runDst as Buffer);
        runSrcAllocation ??= allocationOf(runSrc as Buffer);
        continues = runDstAllocation === allocationOf(dst) && runSrcAllocation === allocationOf(src);
      }
      if (continues) {
        runSize += size;
        writeSize(sizeHalves, packed - 1, runSize);
      } else {
        writeSize(sizeHalves, packed, size);
        packed++;
        runSize = size;
        runDst = dst;
        runSrc = src;
        runDstAllocation = undefined;
        runSrcAllocation = undefined;
      }
      lastEnd = to + size;
      lastSourceEnd = from + size;
    }
    scratch.count = packed;
    dstChecks.recheck();
    srcChecks.recheck();
  } finally {
    dstChecks.end();
    srcChecks.end();
  }
}

/** Checks every pair of `request` into `pairs` (each copy of more than 0 bytes, uncoalesced). @throws as {@link copyBatch}. */
function collectPairs(request: PairRequest, pairs: CheckedPairs): void {
  const { count, dsts, srcs, sizes } = request;
  const [dstChecks, srcChecks] = beginChecks(request, false);
  try {
    for (let i = 0; i < count; i++) {
      const dst = dstChecks.check(dsts[i], i);
      const src = srcChecks.check(srcs[i], i);
      const size = pairSize(dst, src, sizes, i);
      if (size === 0) continue;
      pairs.dsts.push(dst);
      pairs.srcs.push(src);
      pairs.sizes.push(size);
    }
    dstChecks.recheck();
    srcChecks.recheck();
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
  collectPairs(request, pairs);
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
    // The element's name is built only when the error needs it.
    checked[i] =
      typeof size === 'number' && Number.isSafeInteger(size) && size >= 0
        ? size
        : checkSize(size, `sizes[${i}]`);
  }
  return checked;
}
