// The Buffer's side of copies between devices (peer-copy.ts holds the policy): a copy between
// two Buffers, and whether a stream's device reaches a Buffer's memory.
import { CudaStateError } from '@cumem/core-types';
import {
  accessAllows,
  checkStreamArgument,
  copyAcrossDevices,
  memoryPoolOf,
  poolReaches,
} from '../copy/peer-copy.js';
import { copyPointers } from '../copy/pointer-copy.js';
import { virtualAccess } from '../resources/virtual/virtual-ranges.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import type { Stream } from '../stream/stream.js';
import { type BufferBase, bufferBrand, bufferState } from './buffer-base.js';
import type { BufferState } from './buffer-state.js';

/** `size` bytes from buffer `src` to buffer `dst`; the same-device case is the unchanged hot path. */
export function copyBuffers(
  runtime: DriverRuntime,
  dst: BufferState,
  src: BufferState,
  size: number,
  stream: Stream | undefined,
  ordinal: number,
): void {
  const device = src.deviceId;
  if (dst.deviceId === device && (device < 0 || stream === undefined || stream.ordinal === device)) {
    copyPointers(runtime, dst.pointer, src.pointer, size, stream, ordinal);
    return;
  }
  const dstDevice = dst.isDeviceOnly ? dst.deviceId : -1;
  const srcDevice = src.isDeviceOnly ? device : -1;
  copyAcrossDevices(runtime, dst.pointer, dstDevice, src.pointer, srcDevice, size, stream, ordinal);
}

// The pool of each allocation (keyed by its root buffer: slices share it), asked of the driver
// once: an allocation never moves to another pool, while a batch asks per call.
const poolOfAllocation = new WeakMap<BufferBase, bigint>();

/**
 * For @cumem/utils: {@link reachableOn} for the memory of `buffer` (device-only memory of
 * another device than `stream`'s; any other memory is reachable). Which pool the allocation came
 * from is asked of the driver once per allocation; the pool's access, which its owner can change
 * at any time, is asked on every call.
 * @throws TypeError for anything but a Stream and a Buffer of @cumem/memory; CudaStateError when
 *   they belong to different drivers.
 */
export function bufferReachableOn(stream: Stream, buffer: BufferBase, write: boolean): boolean {
  checkStreamArgument(stream);
  const state = bufferState(bufferBrand.check(buffer, 'buffer'));
  if (state.runtime !== stream.runtime)
    throw new CudaStateError('the buffer and the stream belong to different drivers');
  const on = stream.ordinal;
  const device = state.isDeviceOnly ? state.deviceId : -1;
  if (device < 0 || device === on) return true;
  let allocation = state;
  while (allocation.parent !== null) allocation = allocation.parent;
  const runtime = stream.runtime;
  const allocationPointer = allocation.pointer;
  const vmm = virtualAccess(runtime, allocationPointer, on);
  if (vmm !== undefined) return accessAllows(vmm, write);
  let pool = poolOfAllocation.get(allocation.buffer);
  if (pool === undefined) {
    pool = memoryPoolOf(runtime, allocationPointer);
    poolOfAllocation.set(allocation.buffer, pool);
  }
  return poolReaches(runtime, on, pool, device, write);
}
