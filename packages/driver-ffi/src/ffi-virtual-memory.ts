// Virtual memory management: address ranges, physical chunks, mappings, access and POSIX-fd sharing.

import {
  type DevicePointer,
  type DriverHandle,
  type MemAccessDescriptor,
  type MemAllocationProperties,
  MemHandleType,
  type MemLocation,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { packAccessDescriptors } from './ffi-peers.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';
import { requireLocationSupported } from './location-support.js';
import { exportFileDescriptor } from './shareable-handles.js';

/** The C ints of a `CUmemAllocationProp`, checked as the N-API addon reads them (koffi and DataView would coerce). */
function checkPropertyInts(properties: MemAllocationProperties): void {
  intArgument(properties.allocationType, 'allocationType');
  intArgument(properties.requestedHandleTypes, 'requestedHandleTypes');
  intArgument(properties.location.type, 'location.type');
  intArgument(properties.location.id, 'location.id');
  intArgument(properties.usage, 'usage');
}

/** `CUmemAllocationProp` as koffi writes it (reserved bytes and win32HandleMetaData zero). */
function allocationProp(state: DriverState, properties: MemAllocationProperties, call: string): object {
  checkPropertyInts(properties);
  requireLocationSupported(state, properties.location, call);
  return {
    type: properties.allocationType,
    requestedHandleTypes: properties.requestedHandleTypes,
    location: { type: properties.location.type, id: properties.location.id },
    win32HandleMetaData: 0n,
    allocFlags: {
      compressionType: 0,
      gpuDirectRDMACapable: properties.gpuDirectRdmaCapable ? 1 : 0,
      usage: properties.usage,
      reserved: [0, 0, 0, 0],
    },
  };
}

// cuMemCreate's CUmemAllocationProp, written in place into 32 bytes at the offsets
// memGetAllocationPropertiesFromHandle reads (test/struct-layout.test.ts checks them against
// cuda.h): koffi's conversion of the nested object cost more than the driver's cuMemCreate of a
// 2 MiB chunk. One per module (a Worker loads its own); the driver reads it during the call only.
const propBytes = new Uint8Array(32);
const propView = new DataView(propBytes.buffer);

function allocationPropBytes(
  state: DriverState,
  properties: MemAllocationProperties,
  call: string,
): Uint8Array {
  checkPropertyInts(properties);
  requireLocationSupported(state, properties.location, call);
  propBytes.fill(0);
  propView.setInt32(0, properties.allocationType, true);
  propView.setInt32(4, properties.requestedHandleTypes, true);
  propView.setInt32(8, properties.location.type, true);
  propView.setInt32(12, properties.location.id, true);
  propBytes[25] = properties.gpuDirectRdmaCapable ? 1 : 0;
  propView.setUint16(26, properties.usage, true);
  return propBytes;
}

export function memGetAllocationGranularity(
  state: DriverState,
  properties: MemAllocationProperties,
  option: number,
): number {
  const prop = allocationProp(state, properties, 'cuMemGetAllocationGranularity');
  const { address, u64 } = state.scratch;
  u64[0] = 0n;
  state.check(
    state.native.cuMemGetAllocationGranularity(address, prop, intArgument(option, 'option')),
    'cuMemGetAllocationGranularity',
  );
  return Number(u64[0]);
}

export function memAddressReserve(
  state: DriverState,
  size: number,
  alignment: number,
  addressHint: DevicePointer,
): DevicePointer {
  const { address, u64 } = state.scratch;
  u64[0] = 0n;
  state.check(
    state.native.cuMemAddressReserve(
      address,
      sizeArgument(size),
      sizeArgument(alignment, 'alignment'),
      handleArgument(addressHint, 'addressHint'),
      0,
    ),
    'cuMemAddressReserve',
  );
  return u64[0]!;
}

export function memAddressFree(state: DriverState, pointer: DevicePointer, size: number): void {
  state.check(
    state.native.cuMemAddressFree(handleArgument(pointer, 'pointer'), sizeArgument(size)),
    'cuMemAddressFree',
  );
}

export function memCreate(
  state: DriverState,
  size: number,
  properties: MemAllocationProperties,
): DriverHandle {
  const prop = allocationPropBytes(state, properties, 'cuMemCreate');
  const { address, u64 } = state.scratch;
  u64[0] = 0n;
  state.check(state.native.cuMemCreate(address, sizeArgument(size), prop, 0), 'cuMemCreate');
  return u64[0]!;
}

export function memRelease(state: DriverState, handle: DriverHandle): void {
  state.check(state.native.cuMemRelease(handleArgument(handle, 'handle')), 'cuMemRelease');
}

export function memMap(
  state: DriverState,
  pointer: DevicePointer,
  size: number,
  offset: number,
  handle: DriverHandle,
): void {
  state.check(
    state.native.cuMemMap(
      handleArgument(pointer, 'pointer'),
      sizeArgument(size),
      sizeArgument(offset, 'offset'),
      handleArgument(handle, 'handle'),
      0,
    ),
    'cuMemMap',
  );
}

export function memUnmap(state: DriverState, pointer: DevicePointer, size: number): void {
  state.check(state.native.cuMemUnmap(handleArgument(pointer, 'pointer'), sizeArgument(size)), 'cuMemUnmap');
}

export function memSetAccess(
  state: DriverState,
  pointer: DevicePointer,
  size: number,
  descriptors: readonly MemAccessDescriptor[],
): void {
  const pointerArgument = handleArgument(pointer, 'pointer');
  const sizeChecked = sizeArgument(size);
  if (descriptors.length === 0) return;
  const packed = packAccessDescriptors(state, descriptors);
  state.check(
    state.native.cuMemSetAccess(pointerArgument, sizeChecked, packed, descriptors.length),
    'cuMemSetAccess',
  );
}

export function memGetAccess(state: DriverState, pointer: DevicePointer, location: MemLocation): number {
  const pointerArgument = handleArgument(pointer, 'pointer');
  intArgument(location.type, 'location.type');
  intArgument(location.id, 'location.id');
  requireLocationSupported(state, location, 'cuMemGetAccess');
  const { address, u64 } = state.scratch;
  u64[0] = 0n;
  const where = { type: location.type, id: location.id };
  state.check(state.native.cuMemGetAccess(address, where, pointerArgument), 'cuMemGetAccess');
  return Number(u64[0]);
}

export function memExportToFileDescriptor(state: DriverState, handle: DriverHandle): number {
  return exportFileDescriptor(state, 'cuMemExportToShareableHandle', handle);
}

export function memImportFromFileDescriptor(state: DriverState, fd: number): DriverHandle {
  const { address, u64 } = state.scratch;
  u64[0] = 0n;
  state.check(
    state.native.cuMemImportFromShareableHandle(address, fd, MemHandleType.PosixFileDescriptor),
    'cuMemImportFromShareableHandle',
  );
  return u64[0]!;
}

export function memGetAllocationPropertiesFromHandle(
  state: DriverState,
  handle: DriverHandle,
): MemAllocationProperties {
  const { address, i32, u8, u64 } = state.scratch;
  u64.fill(0n, 0, 4);
  state.check(
    state.native.cuMemGetAllocationPropertiesFromHandle(address, handleArgument(handle, 'handle')),
    'cuMemGetAllocationPropertiesFromHandle',
  );
  // Offsets of CUmemAllocationProp (test/struct-layout.test.ts checks them against cuda.h).
  return {
    allocationType: i32[0]!,
    requestedHandleTypes: i32[1]!,
    location: { type: i32[2] as MemLocation['type'], id: i32[3]! },
    gpuDirectRdmaCapable: u8[25] !== 0,
    usage: u8[26]! | (u8[27]! << 8),
  };
}
