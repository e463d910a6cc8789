// Issues the driver calls of a CopyPlan: one @cumem/memory issueCopy per planned copy (memory
// holds the dispatch: 1-D / 2-D / 3-D, JS memory endpoints, the host-pool rule).
import type { Driver } from '@cumem/core-types';
import type { Buffer } from '@cumem/memory';
import { bufferState, issueCopy } from '@cumem/memory/internal';
import { type CopyPlan, forEachCopy } from '../strided/copy-plan.js';

/** One end of a planned copy, as @cumem/memory's issueCopy takes it. */
export type CopySide = Parameters<typeof issueCopy>[2];

/**
 * The side of memory at `base`: plain device memory (the device can use it, the CPU cannot) takes
 * the HtoD / DtoH copies; host-pool memory refuses them (memory's rule). Without a Buffer, a
 * device's memory by `deviceId`.
 */
export function pointerSide(base: bigint, buffer: Buffer | null | undefined, deviceId: number): CopySide {
  const deviceOnly = buffer ? bufferState(buffer).isDeviceOnly : deviceId >= 0;
  return { kind: 'pointer', base, deviceOnly };
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
  forEachCopy(plan, (from, to) => {
    calls++;
    issueCopy(driver, plan, src, from, dst, to, stream);
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

/** Rough cost of rearranging `bytes` on the CPU in JS, in microseconds (coarse, as {@link estimateMicroseconds}). */
export function estimateHostMicroseconds(bytes: number): number {
  return bytes / 1_000;
}
