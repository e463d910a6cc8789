// What one device can do with another's memory: cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute.
import { type Device, P2PAttribute } from '@cumem/core-types';
import { deviceOrdinal } from './device-arguments.js';
import { activeRuntime } from './driver-runtime.js';

/** The link from one device to another, as {@link peerAttributes} reports it. */
export interface PeerAttributes {
  /** The first device can access the second's memory directly (`cuDeviceCanAccessPeer`). */
  readonly accessSupported: boolean;
  /** Every CUDA atomic works natively over the link. */
  readonly nativeAtomicSupported: boolean;
  /** CUDA arrays can be accessed over the link. */
  readonly cudaArrayAccessSupported: boolean;
  /** A relative rank of the link's performance: lower is faster. */
  readonly performanceRank: number;
}

/**
 * Whether `device` can access the memory of `peer` directly (`cuDeviceCanAccessPeer`). A device
 * is not its own peer: `canAccessPeer(d, d)` is false.
 * @throws TypeError for a non-device; RangeError for a device that does not exist.
 */
export function canAccessPeer(device: Device | number, peer: Device | number): boolean {
  const runtime = activeRuntime();
  const from = deviceOrdinal(runtime, device);
  const to = deviceOrdinal(runtime, peer, 'peer');
  return runtime.driver.deviceCanAccessPeer(from, to);
}

/**
 * The link from `src` to `dst` (`cuDeviceGetP2PAttribute`).
 * @throws TypeError for a non-device; RangeError for a device that does not exist, or the same device twice.
 */
export function peerAttributes(src: Device | number, dst: Device | number): PeerAttributes {
  const runtime = activeRuntime();
  const from = deviceOrdinal(runtime, src, 'src');
  const to = deviceOrdinal(runtime, dst, 'dst');
  if (from === to)
    throw new RangeError(`peerAttributes needs two different devices, got device ${from} twice`);
  const attribute = (which: number) => runtime.driver.deviceGetP2PAttribute(which, from, to);
  return {
    accessSupported: attribute(P2PAttribute.AccessSupported) !== 0,
    nativeAtomicSupported: attribute(P2PAttribute.NativeAtomicSupported) !== 0,
    cudaArrayAccessSupported: attribute(P2PAttribute.CudaArrayAccessSupported) !== 0,
    performanceRank: attribute(P2PAttribute.PerformanceRank),
  };
}
