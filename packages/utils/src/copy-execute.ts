// Issues the driver calls of a CopyPlan. JS memory goes to the driver as an ArrayBufferView
// (CU_MEMORYTYPE_HOST in 2D/3D copies); everything else as a unified address.
import type { CopyEndpoint, Driver } from '@cumem/core-types';
import { type CopyPlan, forEachCopy } from './copy-plan.js';

/** One side of a driver copy: a unified address, or JS memory. */
export type CopySide =
  | { readonly kind: 'pointer'; readonly base: bigint }
  | { readonly kind: 'host'; readonly bytes: Uint8Array };

function endpoint(side: CopySide, offset: number): CopyEndpoint {
  return side.kind === 'pointer' ? side.base + BigInt(offset) : side.bytes.subarray(offset);
}

/** Enqueues every copy of `plan` on `stream`. Returns the number of driver calls made. */
export function executePlan(
  driver: Driver,
  plan: CopyPlan,
  src: CopySide,
  dst: CopySide,
  stream: bigint,
): number {
  let calls = 0;
  const { width } = plan;
  forEachCopy(plan, (from, to) => {
    calls++;
    if (plan.kind === '2d') {
      driver.memcpy2DAsync(
        {
          src: endpoint(src, from),
          srcPitch: plan.srcPitch,
          dst: endpoint(dst, to),
          dstPitch: plan.dstPitch,
          widthInBytes: width,
          height: plan.height,
        },
        stream,
      );
    } else if (plan.kind === '3d') {
      driver.memcpy3DAsync(
        {
          src: endpoint(src, from),
          srcPitch: plan.srcPitch,
          srcHeight: plan.srcHeight,
          dst: endpoint(dst, to),
          dstPitch: plan.dstPitch,
          dstHeight: plan.dstHeight,
          widthInBytes: width,
          height: plan.height,
          depth: plan.depth,
        },
        stream,
      );
    } else if (src.kind === 'pointer' && dst.kind === 'pointer') {
      driver.memcpyAsync(dst.base + BigInt(to), src.base + BigInt(from), width, stream);
    } else if (src.kind === 'host' && dst.kind === 'pointer') {
      driver.memcpyHtoDAsync(dst.base + BigInt(to), src.bytes.subarray(from, from + width), stream);
    } else if (src.kind === 'pointer' && dst.kind === 'host') {
      driver.memcpyDtoHAsync(dst.bytes.subarray(to, to + width), src.base + BigInt(from), stream);
    } else if (src.kind === 'host' && dst.kind === 'host') {
      dst.bytes.set(src.bytes.subarray(from, from + width), to);
    }
  });
  return calls;
}

/**
 * Rough cost of a plan in microseconds, to choose between a direct copy and host staging:
 * a fixed cost per driver call, a cost per row (DMA engines move narrow rows slowly), and
 * the bytes at copy-engine speed. Coarse on purpose: it only has to rank very different plans.
 */
export function estimateMicroseconds(plan: CopyPlan): number {
  if (plan.calls === 0) return 0;
  const rows = plan.calls * plan.height * plan.depth;
  const rowCost = plan.width < 512 ? 0.01 : 0;
  return plan.calls * 3 + rows * rowCost + plan.bytes / 20_000;
}

/** Rough cost of rearranging `bytes` on the CPU in JS, in microseconds (about 1 GB/s). */
export function estimateHostMicroseconds(bytes: number): number {
  return bytes / 1_000;
}
