// The pool queries of CUDA 13.0: which pool a location (the host's, a device's) currently uses,
// or uses by default. Both write a CUmemoryPool to the native scratch.
import type { DriverHandle, MemLocation } from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { notSupported, requireLocationSupported } from './location-support.js';

type Query = 'cuMemGetMemPool' | 'cuMemGetDefaultMemPool';

function queryPool(
  state: DriverState,
  call: Query,
  location: MemLocation,
  allocationType: number,
): DriverHandle {
  const bound = state.native[call];
  if (!state.capabilities.memoryPoolQueries || bound === undefined) {
    throw notSupported(state, call, 'memoryPoolQueries');
  }
  requireLocationSupported(state, location, call);
  const { address, u64 } = state.scratch;
  // cuda.h takes the location by pointer; a fresh object, as cuMemPoolGetAccess's, in case the caller's is frozen.
  state.check(bound(address, { type: location.type, id: location.id }, allocationType), call);
  return u64[0]!;
}

export function memGetMemPool(
  state: DriverState,
  location: MemLocation,
  allocationType: number,
): DriverHandle {
  return queryPool(state, 'cuMemGetMemPool', location, allocationType);
}

export function memGetDefaultMemPool(
  state: DriverState,
  location: MemLocation,
  allocationType: number,
): DriverHandle {
  return queryPool(state, 'cuMemGetDefaultMemPool', location, allocationType);
}
