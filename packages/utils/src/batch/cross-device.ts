// Work of copyBatch and StridedMemoryView copies whose ends lie on another device than the
// stream's. The same-device case never gets here (one number compared per buffer). Copies whose
// ends the stream's device can reach stay ordinary; others go through @cumem/memory's peer path
// (cuMemcpyPeerAsync), as Buffer.copyTo does (README of @cumem/memory, "Several GPUs").
import type { Driver, Memcpy2D, Memcpy3D } from '@cumem/core-types';
import type { Buffer, Stream } from '@cumem/memory';
import { bufferState, copyBetweenDevices, reachability } from '@cumem/memory/internal';

const { bufferReachableOn } = reachability;

/**
 * True when some buffer of `memories` (one per distinct memory: checkBuffers' `memories`) is
 * device memory of another device than `on` (no driver call).
 */
export function crossesDevices(on: number, memories: readonly Buffer[]): boolean {
  for (const buffer of memories) {
    const device = bufferState(buffer).deviceId;
    if (device >= 0 && device !== on) return true;
  }
  return false;
}

/** The device whose own memory `buffer` is, or -1 for memory every device reaches (pinned, managed). */
export function ownDevice(buffer: Buffer): number {
  return bufferState(buffer).isDeviceOnly ? bufferState(buffer).deviceId : -1;
}

/**
 * Whether `stream`'s device can read (`write`: and write) every buffer of `memories` (one per
 * distinct memory: checkBuffers' `memories`) with ordinary copies. Buffers of one pool share its
 * access, so a batch of 1024 slices of two buffers costs one pool-access query
 * (cuMemPoolGetAccess) per side whose memory is on another device.
 */
export function allReachable(stream: Stream, memories: readonly Buffer[], write: boolean): boolean {
  // The allocation's pool is asked of the driver once per allocation, its access every call.
  for (const buffer of memories) if (!bufferReachableOn(stream, buffer, write)) return false;
  return true;
}

/** Copies each pair on its own through the peer path (for batches with unreachable ends). */
export function copyPairsAcrossDevices(
  stream: Stream,
  dsts: readonly Buffer[],
  srcs: readonly Buffer[],
  sizeOf: (i: number) => number,
  count: number,
): void {
  for (let i = 0; i < count; i++) {
    const size = sizeOf(i);
    if (size === 0) continue;
    const dst = dsts[i]!;
    const src = srcs[i]!;
    copyBetweenDevices(
      bufferState(dst).pointer,
      ownDevice(dst),
      bufferState(src).pointer,
      ownDevice(src),
      size,
      stream,
    );
  }
}

/**
 * A driver whose pointer copies go through the peer path: 1D copies as they are, 2D and 3D ones
 * row by row (cuMemcpyPeerAsync copies one range). For strided copies between devices whose
 * memory the stream's device cannot reach; the rest of `inner` is used as it is.
 */
export function peerCopyDriver(inner: Driver, stream: Stream, dstDevice: number, srcDevice: number): Driver {
  const copy = (dst: bigint, src: bigint, size: number) =>
    copyBetweenDevices(dst, dstDevice, src, srcDevice, size, stream);
  const rows = (c: Memcpy2D, srcBase: bigint, dstBase: bigint) => {
    for (let row = 0; row < c.height; row++) {
      copy(dstBase + BigInt(row * c.dstPitch), srcBase + BigInt(row * c.srcPitch), c.widthInBytes);
    }
  };
  // Defined, not assigned: the adapters' drivers are frozen, and assignment over a frozen
  // prototype's member is refused.
  const overrides = {
    memcpyAsync: (dst: bigint, src: bigint, size: number) => copy(dst, src, size),
    memcpy2DAsync: (c: Memcpy2D) => rows(c, c.src as bigint, c.dst as bigint),
    memcpy3DAsync: (c: Memcpy3D) => {
      for (let slice = 0; slice < c.depth; slice++) {
        rows(
          c,
          (c.src as bigint) + BigInt(slice * c.srcPitch * c.srcHeight),
          (c.dst as bigint) + BigInt(slice * c.dstPitch * c.dstHeight),
        );
      }
    },
  };
  const properties: PropertyDescriptorMap = {};
  for (const [key, value] of Object.entries(overrides)) properties[key] = { value, enumerable: true };
  return Object.defineProperties(Object.create(inner), properties) as Driver;
}
