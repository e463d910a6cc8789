// Copy between two StridedMemoryViews of one shape and dtype, any layouts: host<->device and
// device<->device. The common cases become one cuMemcpy / cuMemcpy2D / cuMemcpy3D; the rest
// loop over outer axes, and a JS host side whose layout would cost many tiny copies (a
// transpose) is first rearranged on the CPU so that the driver sees a side dense in the
// device side's order.
import { checkBoolean, checkOptions, describeValue } from '@cumem/core-types';
import { defaultStream, type Stream } from '@cumem/memory';
import { reachability } from '@cumem/memory/internal';
import {
  type CopySide,
  estimateHostMicroseconds,
  estimateMicroseconds,
  executePlan,
} from '../batch/copy-execute.js';
import { peerCopyDriver } from '../batch/cross-device.js';
import { checkStream, driverFor } from '../stream-binding.js';
import { buildCopyPlan, type CopyPlan } from './copy-plan.js';
import type { DType } from './dtype.js';
import { hostStridedCopy } from './host-strided-copy.js';
import type { StridedLayout } from './strided-layout.js';

const { reachableOn } = reachability;

/** Options of `copyFrom` / `copyTo`. */
export interface StridedCopyOptions {
  /** Stream to order the copy on. Omitted: the device's default stream, and the call waits for the copy. */
  readonly stream?: Stream;
  /**
   * Wait for the copy before returning. Default (as cuda.core): `true` for a copy between host
   * and device memory (a JS array, or a view with `deviceId` -1 such as pinned memory, on
   * either side), even when `stream` is given; for device<->device, `true` without `stream` and
   * `false` with one. `false` never blocks on a direct copy (JS memory stays referenced by the
   * stream until the copy is done); a copy staged through a CPU rearrangement always waits.
   */
  readonly blocking?: boolean;
}

/** What the copy needs from a view (implemented by StridedMemoryView). */
export interface CopyableView {
  readonly layout: StridedLayout;
  readonly dtype: DType;
  readonly readonly: boolean;
  readonly deviceId: number;
  /** The memory at layout offset 0; throws CudaStateError when the owner was closed. */
  copySide(): CopySide;
}

/** How a copy was carried out (returned for tests and benchmarks). */
export interface StridedCopyReport {
  /** `'host'`: CPU only; `'direct'`: driver copies of the two layouts; `'staged'`: CPU rearrangement plus driver copies. */
  readonly path: 'host' | 'direct' | 'staged';
  /** The plan of the driver copies (absent for `'host'`). */
  readonly plan?: CopyPlan;
}

function sideOf(layout: StridedLayout): { offset: number; strides: number[] } {
  return { offset: layout.offset * layout.itemsize, strides: layout.strides.map((s) => s * layout.itemsize) };
}

/**
 * Validates, then copies every element of `src` into `dst`.
 * @throws TypeError (dtype mismatch, read-only destination, bad options), RangeError (shape
 *   mismatch, destination with a repeated element), CudaStateError (closed owner) — before any driver call.
 */
export function stridedCopy(
  dst: CopyableView,
  src: CopyableView,
  options?: StridedCopyOptions,
): StridedCopyReport {
  const { stream, blocking } = checkOptions(options);
  const given = stream === undefined ? undefined : checkStream(stream);
  const asked = blocking === undefined ? undefined : checkBoolean(blocking, 'blocking');
  if (dst.readonly) throw new TypeError('the destination view is read-only');
  if (dst.dtype !== src.dtype)
    throw new TypeError(`dtype mismatch: destination ${dst.dtype}, source ${src.dtype}`);
  const shape = dst.layout.shape;
  if (shape.length !== src.layout.ndim || shape.some((extent, axis) => extent !== src.layout.shape[axis])) {
    throw new RangeError(
      `shape mismatch: destination [${shape.join(', ')}], source [${src.layout.shape.join(', ')}]`,
    );
  }
  if (dst.layout.shape.some((extent, axis) => extent > 1 && dst.layout.strides[axis] === 0)) {
    throw new RangeError(
      'the destination layout has a zero stride: several elements would share one address',
    );
  }
  const srcSide = src.copySide();
  const dstSide = dst.copySide();
  const itemsize = dst.layout.itemsize;
  if (srcSide.kind === 'host' && dstSide.kind === 'host') {
    hostStridedCopy(
      shape,
      itemsize,
      { bytes: dstSide.bytes, ...sideOf(dst.layout) },
      { bytes: srcSide.bytes, ...sideOf(src.layout) },
    );
    return { path: 'host' };
  }
  const direct = buildCopyPlan(shape, itemsize, sideOf(src.layout), sideOf(dst.layout));
  if (direct.calls === 0) return { path: 'direct', plan: direct };
  const ordinal = dst.deviceId >= 0 ? dst.deviceId : src.deviceId >= 0 ? src.deviceId : undefined;
  const target = given ?? defaultStream(ordinal);
  let driver = driverFor(target);
  const handle = target.handle;
  if (srcSide.kind === 'pointer' && dstSide.kind === 'pointer') {
    const on = target.device.ordinal;
    const srcDevice = src.deviceId;
    const dstDevice = dst.deviceId;
    if (
      ((srcDevice >= 0 && srcDevice !== on) || (dstDevice >= 0 && dstDevice !== on)) &&
      !(
        reachableOn(target, srcSide.base, srcDevice, false) &&
        reachableOn(target, dstSide.base, dstDevice, true)
      )
    ) {
      driver = peerCopyDriver(driver, target, dstDevice, srcDevice);
    }
  }

  const hostIsSource = srcSide.kind === 'host';
  const deviceView = hostIsSource ? dst : src;
  if (srcSide.kind === 'host' || dstSide.kind === 'host') {
    const dense = deviceView.layout.toDense();
    const staged = hostIsSource
      ? buildCopyPlan(shape, itemsize, sideOf(dense), sideOf(deviceView.layout))
      : buildCopyPlan(shape, itemsize, sideOf(deviceView.layout), sideOf(dense));
    const stagedCost = estimateMicroseconds(staged) + estimateHostMicroseconds(direct.bytes);
    if (stagedCost < 0.8 * estimateMicroseconds(direct)) {
      const temp = new Uint8Array(dense.requiredSizeInBytes());
      const tempSide = { bytes: temp, ...sideOf(dense) };
      const hostBytes = (hostIsSource ? srcSide : dstSide) as Extract<CopySide, { kind: 'host' }>;
      if (hostIsSource) {
        // The CPU reads the source now, so earlier work on the stream that writes it must be done.
        driver.streamSynchronize(handle);
        hostStridedCopy(shape, itemsize, tempSide, { bytes: hostBytes.bytes, ...sideOf(src.layout) });
        executePlan(driver, staged, { kind: 'host', bytes: temp }, dstSide, handle);
      } else {
        executePlan(driver, staged, srcSide, { kind: 'host', bytes: temp }, handle);
      }
      // Staging always waits: the CPU must scatter after the copy lands, and the temporary must outlive it.
      driver.streamSynchronize(handle);
      if (!hostIsSource)
        hostStridedCopy(shape, itemsize, { bytes: hostBytes.bytes, ...sideOf(dst.layout) }, tempSide);
      return { path: 'staged', plan: staged };
    }
  }
  executePlan(driver, direct, srcSide, dstSide, handle);
  if (asked ?? (given === undefined || touchesHost(src, srcSide) || touchesHost(dst, dstSide))) {
    target.sync();
  } else {
    holdJsMemory(target, srcSide);
    holdJsMemory(target, dstSide);
  }
  return { path: 'direct', plan: direct };
}

// cuda.core's `blocking=None`: host<->device copies block, so that the CPU may read or reuse
// the host side right after the call (ported code relies on it).
function touchesHost(view: CopyableView, side: CopySide): boolean {
  return side.kind === 'host' || view.deviceId < 0;
}

// Asynchronous copies read or write JS memory later: the stream keeps it referenced until done.
function holdJsMemory(stream: Stream, side: CopySide): void {
  if (side.kind !== 'host') return;
  stream.holdHostMemory(side.bytes);
}

/** Checks the `other` argument of copyFrom / copyTo. */
export function checkView<T>(value: unknown, isView: (value: unknown) => value is T, name: string): T {
  if (!isView(value)) throw new TypeError(`${name} must be a StridedMemoryView, got ${describeValue(value)}`);
  return value;
}
