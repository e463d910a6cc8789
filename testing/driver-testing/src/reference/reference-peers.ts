import {
  type DevicePointer,
  type DriverHandle,
  type MemAccessDescriptor,
  MemAccessFlags,
  P2PAttribute,
} from '@cumem/core-types';
import { cudaError } from './cuda-errors.js';
import { accessKey } from './pool-state.js';
import { ReferencePools } from './reference-pools.js';

// What the reference's devices report about each other: every pair is linked like two GPUs on
// NVLink (access, native atomics, arrays; rank 0). A device is never its own peer, as on the driver.
const linkAttributes = new Map<number, number>([
  [P2PAttribute.PerformanceRank, 0],
  [P2PAttribute.AccessSupported, 1],
  [P2PAttribute.NativeAtomicSupported, 1],
  [P2PAttribute.CudaArrayAccessSupported, 1],
  [P2PAttribute.OnlyPartialNativeAtomicSupported, 0],
]);

/** The members for several devices: peer queries, context peer access, peer copies, bulk pool access. */
export abstract class ReferencePeers extends ReferencePools {
  /** `current context ordinal -> peer ordinals` with context peer access enabled. */
  private readonly peerAccess = new Map<number, Set<number>>();

  deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean {
    this.state.checkDevice(ordinal, 'cuDeviceCanAccessPeer');
    this.state.checkDevice(peerOrdinal, 'cuDeviceCanAccessPeer');
    return ordinal !== peerOrdinal;
  }
  deviceGetP2PAttribute(attribute: number, srcOrdinal: number, dstOrdinal: number): number {
    const call = 'cuDeviceGetP2PAttribute';
    this.state.checkDevice(srcOrdinal, call);
    this.state.checkDevice(dstOrdinal, call);
    // cuda.h: the same device twice is CUDA_ERROR_INVALID_DEVICE.
    if (srcOrdinal === dstOrdinal) throw cudaError(call, 'CUDA_ERROR_INVALID_DEVICE');
    const value = linkAttributes.get(attribute);
    if (value === undefined) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return value;
  }
  contextEnablePeerAccess(peerContext: DriverHandle): void {
    const call = 'cuCtxEnablePeerAccess';
    const device = this.state.requireContext(call);
    const peer = this.state.contexts.indexOf(peerContext);
    // cuda.h: no current context, or a peer context that is not a context, is INVALID_CONTEXT.
    if (peer < 0 || this.state.retainCounts[peer] === 0) throw cudaError(call, 'CUDA_ERROR_INVALID_CONTEXT');
    if (peer === device) throw cudaError(call, 'CUDA_ERROR_INVALID_DEVICE');
    // Enabling twice answers CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED on the driver; the contract makes it success.
    const peers = this.peerAccess.get(device) ?? new Set<number>();
    peers.add(peer);
    this.peerAccess.set(device, peers);
  }
  memcpyPeerAsync(
    dst: DevicePointer,
    dstContext: DriverHandle,
    src: DevicePointer,
    srcContext: DriverHandle,
    size: number,
    stream: DriverHandle,
  ): void {
    const call = 'cuMemcpyPeerAsync';
    this.state.checkStream(stream, call);
    for (const context of [dstContext, srcContext]) {
      const ordinal = this.state.contexts.indexOf(context);
      if (ordinal < 0 || this.state.retainCounts[ordinal] === 0)
        throw cudaError(call, 'CUDA_ERROR_INVALID_CONTEXT');
    }
    // Device memory at both ends, as the driver demands: host memory (page-locked or JS) and
    // managed memory are refused, as a real driver 580 refuses them.
    for (const pointer of [dst, src]) {
      if (this.state.allocationSpan(pointer, size, call).allocation.kind !== 'device')
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    const from = this.state.driverBytes(src, size, call);
    this.state.driverBytes(dst, size, call).set(from);
  }
  memPoolSetAccessMany(pool: DriverHandle, descriptors: readonly MemAccessDescriptor[]): void {
    if (descriptors.length === 0) return;
    // The driver checks the whole array before changing anything; so does the reference.
    const call = 'cuMemPoolSetAccess';
    const state = this.state.pool(pool, call);
    const owners = descriptors.map(({ location, flags }) => {
      const owner = this.accessOwner(state, location, call);
      const valid =
        flags === MemAccessFlags.None || flags === MemAccessFlags.Read || flags === MemAccessFlags.ReadWrite;
      if (!valid || (owner && flags !== MemAccessFlags.ReadWrite))
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
      return owner;
    });
    descriptors.forEach(({ location, flags }, i) => {
      if (!owners[i]) state.setAccess(accessKey(location.type, location.id), flags);
    });
  }

  /** Whether context peer access from device `ordinal` to `peer` is enabled (for tests). */
  peerAccessEnabled(ordinal: number, peer: number): boolean {
    return this.peerAccess.get(ordinal)?.has(peer) ?? false;
  }
}
