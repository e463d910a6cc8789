// Several devices: peer queries, context peer access, peer copies and pool access for many
// locations at once.

import type { DriverHandle, MemAccessDescriptor, MemLocation } from '@cumem/core-types';
import type { DriverState, StateMember } from './driver-state.js';
import { deviceHandle } from './ffi-devices.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';
import { requireLocationSupported } from './location-support.js';

/** `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED`: the contract treats it as success. */
const peerAccessAlreadyEnabled = 704;

export function deviceCanAccessPeer(state: DriverState, ordinal: number, peerOrdinal: number): boolean {
  const device = deviceHandle(state, ordinal, 'cuDeviceCanAccessPeer');
  const peer = deviceHandle(state, peerOrdinal, 'cuDeviceCanAccessPeer');
  state.check(
    state.native.cuDeviceCanAccessPeer(state.scratch.address, device, peer),
    'cuDeviceCanAccessPeer',
  );
  return state.scratch.i32[0] !== 0;
}

export function deviceGetP2PAttribute(
  state: DriverState,
  attribute: number,
  srcOrdinal: number,
  dstOrdinal: number,
): number {
  const src = deviceHandle(state, srcOrdinal, 'cuDeviceGetP2PAttribute');
  const dst = deviceHandle(state, dstOrdinal, 'cuDeviceGetP2PAttribute');
  state.check(
    state.native.cuDeviceGetP2PAttribute(state.scratch.address, attribute, src, dst),
    'cuDeviceGetP2PAttribute',
  );
  return state.scratch.i32[0]!;
}

export function contextEnablePeerAccess(state: DriverState, peerContext: DriverHandle): void {
  const result = state.native.cuCtxEnablePeerAccess(peerContext, 0);
  if (result !== peerAccessAlreadyEnabled) state.check(result, 'cuCtxEnablePeerAccess');
}

export const memcpyPeerAsync: StateMember<'memcpyPeerAsync'> = (
  state,
  dst,
  dstContext,
  src,
  srcContext,
  size,
  stream,
) => {
  state.check(
    state.native.cuMemcpyPeerAsync(
      handleArgument(dst, 'dst'),
      handleArgument(dstContext, 'dstContext'),
      handleArgument(src, 'src'),
      handleArgument(srcContext, 'srcContext'),
      sizeArgument(size),
      handleArgument(stream, 'stream'),
    ),
    'cuMemcpyPeerAsync',
  );
};

/**
 * `CUmemAccessDesc` records packed as cuda.h lays them out: `{ { int type; int id; } location;
 * int flags; }`, 12 bytes without padding (test/struct-layout.test.ts checks the size).
 */
export function packAccessDescriptors(
  state: DriverState,
  descriptors: readonly { location: MemLocation; flags: number }[],
): Int32Array {
  const packed = new Int32Array(descriptors.length * 3);
  for (let i = 0; i < descriptors.length; i++) {
    const { location, flags } = descriptors[i]!;
    requireLocationSupported(state, location, 'cuMemPoolSetAccess');
    packed[3 * i] = intArgument(location.type, 'location.type');
    packed[3 * i + 1] = intArgument(location.id, 'location.id');
    packed[3 * i + 2] = intArgument(flags, 'flags');
  }
  return packed;
}

export function memPoolSetAccessMany(
  state: DriverState,
  pool: DriverHandle,
  descriptors: readonly MemAccessDescriptor[],
): void {
  const poolArgument = handleArgument(pool, 'pool');
  if (descriptors.length === 0) return;
  const packed = packAccessDescriptors(state, descriptors);
  state.check(
    state.native.cuMemPoolSetAccess(poolArgument, packed, descriptors.length),
    'cuMemPoolSetAccess',
  );
}
