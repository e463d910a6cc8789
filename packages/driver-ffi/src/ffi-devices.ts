// Devices and contexts.

import type { DriverHandle } from '@cumem/core-types';
import type { EntryPointName } from './bindings.js';
import type { DriverState } from './driver-state.js';
import { releaseStagingBefore } from './ffi-staging.js';
import { intArgument } from './handle-argument.js';

const nameBytes = 256;
const textDecoder = new TextDecoder();

/**
 * The `CUdevice` of `ordinal` (`cuDeviceGet`, cached). A bad ordinal is reported under `call`, the
 * entry point the caller asked for: cuDeviceGet is this adapter's detail, and that entry point
 * documents the same CUDA_ERROR_INVALID_DEVICE for it.
 */
export function deviceHandle(state: DriverState, ordinal: number, call: EntryPointName): number {
  // A number only: the string '0' would find device 0's entry.
  const cached = typeof ordinal === 'number' ? state.devices[ordinal] : undefined;
  if (cached !== undefined) return cached;
  // koffi would wrap an ordinal past 32 bits (2**53 became device 0) and pass 1.5 as 1: the
  // N-API addon's rule (ReadInt) refuses them before any driver call, and passes 2**31 to
  // 2**32 - 1 with their bits (a negative int, which the driver refuses).
  state.check(state.native.cuDeviceGet(state.scratch.address, intArgument(ordinal, 'ordinal') | 0), call);
  const device = state.scratch.i32[0]!;
  if (Number.isInteger(ordinal) && ordinal >= 0 && ordinal < 4096) state.devices[ordinal] = device;
  return device;
}

/**
 * The ordinal of a `CUdevice` (the contract speaks ordinals; cuCtxGetDevice answers a handle): its
 * index among the handles cuDeviceGet gave. A handle not seen yet (a context made current without
 * this driver) makes the adapter ask cuDeviceGet for every ordinal once. A handle no ordinal maps
 * to is returned as it is (handles and ordinals coincide on every NVIDIA driver so far).
 * Uses the scratch memory: read any scratch result before calling this.
 */
export function deviceOrdinal(state: DriverState, device: number): number {
  let index = state.devices.indexOf(device);
  if (index < 0) {
    const count = deviceGetCount(state);
    for (let ordinal = 0; ordinal < count; ordinal++) deviceHandle(state, ordinal, 'cuCtxGetDevice');
    index = state.devices.indexOf(device);
  }
  return index >= 0 ? index : device;
}

export function deviceGetCount(state: DriverState): number {
  state.check(state.native.cuDeviceGetCount(state.scratch.address), 'cuDeviceGetCount');
  return state.scratch.i32[0]!;
}

export function deviceGetName(state: DriverState, ordinal: number): string {
  const device = deviceHandle(state, ordinal, 'cuDeviceGetName');
  const buffer = new Uint8Array(nameBytes);
  state.check(state.native.cuDeviceGetName(buffer, nameBytes, device), 'cuDeviceGetName');
  const end = buffer.indexOf(0);
  return textDecoder.decode(buffer.subarray(0, end < 0 ? nameBytes : end));
}

export function deviceGetUuid(state: DriverState, ordinal: number): Uint8Array {
  const device = deviceHandle(state, ordinal, 'cuDeviceGetUuid');
  const uuid = new Uint8Array(16);
  state.check(state.native.cuDeviceGetUuid_v2(uuid, device), 'cuDeviceGetUuid');
  return uuid;
}

export function deviceTotalMem(state: DriverState, ordinal: number): number {
  const device = deviceHandle(state, ordinal, 'cuDeviceTotalMem');
  state.check(state.native.cuDeviceTotalMem_v2(state.scratch.address, device), 'cuDeviceTotalMem');
  return Number(state.scratch.u64[0]);
}

export function deviceGetAttribute(state: DriverState, attribute: number, ordinal: number): number {
  const attributeChecked = intArgument(attribute, 'attribute');
  const device = deviceHandle(state, ordinal, 'cuDeviceGetAttribute');
  state.check(
    state.native.cuDeviceGetAttribute(state.scratch.address, attributeChecked, device),
    'cuDeviceGetAttribute',
  );
  return state.scratch.i32[0]!;
}

export function deviceGetDefaultMemPool(state: DriverState, ordinal: number): DriverHandle {
  return deviceHandleOut(state, ordinal, 'cuDeviceGetDefaultMemPool');
}

export function deviceGetMemPool(state: DriverState, ordinal: number): DriverHandle {
  return deviceHandleOut(state, ordinal, 'cuDeviceGetMemPool');
}

export function primaryContextRetain(state: DriverState, ordinal: number): DriverHandle {
  return deviceHandleOut(state, ordinal, 'cuDevicePrimaryCtxRetain');
}

/** The handle `entry(&handle, device)` writes for the device of `ordinal`. */
function deviceHandleOut(
  state: DriverState,
  ordinal: number,
  entry: 'cuDeviceGetDefaultMemPool' | 'cuDeviceGetMemPool' | 'cuDevicePrimaryCtxRetain',
): DriverHandle {
  const device = deviceHandle(state, ordinal, entry);
  state.check(state.native[entry](state.scratch.address, device), entry);
  return state.scratch.u64[0]!;
}

export function primaryContextRelease(state: DriverState, ordinal: number): void {
  const device = deviceHandle(state, ordinal, 'cuDevicePrimaryCtxRelease');
  releaseStagingBefore(state, device);
  state.check(state.native.cuDevicePrimaryCtxRelease_v2(device), 'cuDevicePrimaryCtxRelease');
}

export function contextSetCurrent(state: DriverState, context: DriverHandle): void {
  state.check(state.native.cuCtxSetCurrent(context), 'cuCtxSetCurrent');
}

export function contextGetCurrent(state: DriverState): DriverHandle {
  state.check(state.native.cuCtxGetCurrent(state.scratch.address), 'cuCtxGetCurrent');
  return state.scratch.u64[0]!;
}

export function contextGetDevice(state: DriverState): number {
  state.check(state.native.cuCtxGetDevice(state.scratch.address), 'cuCtxGetDevice');
  return deviceOrdinal(state, state.scratch.i32[0]!);
}

export function contextSynchronize(state: DriverState): void {
  state.check(state.native.cuCtxSynchronize(), 'cuCtxSynchronize');
}

export function memGetInfo(state: DriverState): { free: number; total: number } {
  const { address, u64 } = state.scratch;
  state.check(state.native.cuMemGetInfo_v2(address, address + 8), 'cuMemGetInfo');
  return { free: Number(u64[0]), total: Number(u64[1]) };
}

export function contextGetStreamPriorityRange(state: DriverState): { least: number; greatest: number } {
  const { address, i32 } = state.scratch;
  state.check(state.native.cuCtxGetStreamPriorityRange(address, address + 4), 'cuCtxGetStreamPriorityRange');
  return { least: i32[0]!, greatest: i32[1]! };
}
