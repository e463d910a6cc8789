// Stream-ordered memory pools, their IPC, and the two hot calls: allocate and free.

import {
  type DevicePointer,
  type DriverHandle,
  MemHandleType,
  type MemLocation,
  type MemPoolProperties,
  POOL_POINTER_EXPORT_SIZE,
  viewByteLength,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { load, loaded } from './ffi-device-members.js';
import { packAccessDescriptors } from './ffi-peers.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';
import { requireLocationSupported, requirePoolKindSupported } from './location-support.js';
import { exportFileDescriptor } from './shareable-handles.js';

/** Pool attributes whose value is a C `int`; the others are `cuuint64_t` byte counts. */
const lastIntAttribute = 3;

export function memPoolCreate(state: DriverState, properties: MemPoolProperties): DriverHandle {
  const { location } = properties;
  requirePoolKindSupported(state, properties, 'cuMemPoolCreate');
  const props = {
    allocType: properties.allocationType,
    handleTypes: properties.handleTypes,
    location: { type: location.type, id: location.id },
    win32SecurityAttributes: 0,
    maxSize: properties.maxSize,
    usage: 0,
    reserved: zeroReserved,
  };
  state.check(state.native.cuMemPoolCreate(state.scratch.address, props), 'cuMemPoolCreate');
  return state.scratch.u64[0]!;
}

const zeroReserved = new Uint8Array(54);

export function memPoolDestroy(state: DriverState, pool: DriverHandle): void {
  state.check(state.native.cuMemPoolDestroy(handleArgument(pool, 'pool')), 'cuMemPoolDestroy');
}

export function memPoolSetAttribute(
  state: DriverState,
  pool: DriverHandle,
  attribute: number,
  value: number,
): void {
  const poolArgument = handleArgument(pool, 'pool');
  const attributeChecked = intArgument(attribute, 'attribute');
  const { address, u64, i32 } = state.scratch;
  // An int attribute's value is a C int, a byte count's a size (the N-API addon's rules).
  if (attributeChecked <= lastIntAttribute) i32[0] = intArgument(value, 'value');
  else u64[0] = BigInt(sizeArgument(value, 'value'));
  state.check(
    state.native.cuMemPoolSetAttribute(poolArgument, attributeChecked, address),
    'cuMemPoolSetAttribute',
  );
}

export function memPoolGetAttribute(state: DriverState, pool: DriverHandle, attribute: number): number {
  const poolArgument = handleArgument(pool, 'pool');
  const attributeChecked = intArgument(attribute, 'attribute');
  const { address, u64, i32 } = state.scratch;
  u64[0] = 0n;
  state.check(
    state.native.cuMemPoolGetAttribute(poolArgument, attributeChecked, address),
    'cuMemPoolGetAttribute',
  );
  return attribute <= lastIntAttribute ? i32[0]! : Number(u64[0]);
}

export function memPoolSetAccess(
  state: DriverState,
  pool: DriverHandle,
  location: MemLocation,
  flags: number,
): void {
  const poolArgument = handleArgument(pool, 'pool');
  const packed = packAccessDescriptors(state, [{ location, flags }]);
  state.check(state.native.cuMemPoolSetAccess(poolArgument, packed, 1), 'cuMemPoolSetAccess');
}

export function memPoolGetAccess(state: DriverState, pool: DriverHandle, location: MemLocation): number {
  const poolArgument = handleArgument(pool, 'pool');
  intArgument(location.type, 'location.type');
  intArgument(location.id, 'location.id');
  requireLocationSupported(state, location, 'cuMemPoolGetAccess');
  const { address, i32 } = state.scratch;
  const where = { type: location.type, id: location.id };
  state.check(state.native.cuMemPoolGetAccess(address, poolArgument, where), 'cuMemPoolGetAccess');
  return i32[0]!;
}

export function memPoolTrimTo(state: DriverState, pool: DriverHandle, minBytesToKeep: number): void {
  state.check(
    state.native.cuMemPoolTrimTo(
      handleArgument(pool, 'pool'),
      sizeArgument(minBytesToKeep, 'minBytesToKeep'),
    ),
    'cuMemPoolTrimTo',
  );
}

// The two hot calls (@cumem/memory's allocate and close() make one each per buffer): FfiDriver
// forwards with the driver itself, and the common case here is a few lines, every other one out
// of line, so the caller's own work stays cheap around them (bench/README.md, "Where a small
// call's time goes").
// The last pool and stream with their koffi arguments: an equal bigint handle converts the same.
let lastPool: DriverHandle | undefined;
let lastPoolArgument: number | bigint = 0;
let lastStream: DriverHandle | undefined;
let lastStreamArgument: number | bigint = 0;

/** What the hot calls read the driver's state from: the FfiDriver, loaded on first use. */
export interface StateSource {
  readonly [loaded]: DriverState | undefined;
  [load](): DriverState;
}

export function memAllocFromPoolAsync(
  source: StateSource,
  size: number,
  pool: DriverHandle,
  stream: DriverHandle,
): DevicePointer {
  const state = source[loaded];
  if (
    state === undefined ||
    pool !== lastPool ||
    stream !== lastStream ||
    !(Number.isSafeInteger(size) && size >= 0)
  )
    return allocateWithNewArguments(source, size, pool, stream);
  const { scratch } = state;
  const result = state.native.cuMemAllocFromPoolAsync(
    scratch.address,
    size,
    lastPoolArgument,
    lastStreamArgument,
  );
  if (result !== 0) state.check(result, 'cuMemAllocFromPoolAsync');
  return scratch.u64[0]!;
}

// Loads the driver (or throws its failure) first, as every member does; then checks and converts
// the arguments (size first, as the N-API addon) and remembers the handles'.
function allocateWithNewArguments(
  source: StateSource,
  size: number,
  pool: DriverHandle,
  stream: DriverHandle,
): DevicePointer {
  if (source[loaded] === undefined) source[load]();
  sizeArgument(size);
  rememberStream(stream, handleArgument(pool, 'pool'));
  lastPool = pool;
  return memAllocFromPoolAsync(source, size, pool, stream);
}

export function memFreeAsync(source: StateSource, pointer: DevicePointer, stream: DriverHandle): void {
  const state = source[loaded] ?? source[load]();
  if (stream !== lastStream) rememberFreeStream(pointer, stream);
  const result = state.native.cuMemFreeAsync(handleArgument(pointer, 'pointer'), lastStreamArgument);
  if (result !== 0) state.check(result, 'cuMemFreeAsync');
}

// The pointer is checked first, as the N-API addon does; then the stream is remembered.
function rememberFreeStream(pointer: DevicePointer, stream: DriverHandle): void {
  handleArgument(pointer, 'pointer');
  rememberStream(stream, lastPoolArgument);
}

// Converts `stream` (which throws for a bad one) before anything is remembered, so a refused
// handle leaves the remembered pair as it was.
function rememberStream(stream: DriverHandle, poolArgument: number | bigint): void {
  const streamArgument = handleArgument(stream, 'stream');
  lastPoolArgument = poolArgument;
  lastStreamArgument = streamArgument;
  lastStream = stream;
}

export function memPoolExportToFileDescriptor(state: DriverState, pool: DriverHandle): number {
  return exportFileDescriptor(state, 'cuMemPoolExportToShareableHandle', pool);
}

export function memPoolImportFromFileDescriptor(state: DriverState, fd: number): DriverHandle {
  state.check(
    state.native.cuMemPoolImportFromShareableHandle(
      state.scratch.address,
      fd,
      MemHandleType.PosixFileDescriptor,
      0,
    ),
    'cuMemPoolImportFromShareableHandle',
  );
  return state.scratch.u64[0]!;
}

export function memPoolExportPointer(state: DriverState, pointer: DevicePointer): Uint8Array {
  const data = new Uint8Array(POOL_POINTER_EXPORT_SIZE);
  state.check(
    state.native.cuMemPoolExportPointer(data, handleArgument(pointer, 'pointer')),
    'cuMemPoolExportPointer',
  );
  return data;
}

export function memPoolImportPointer(
  state: DriverState,
  pool: DriverHandle,
  data: Uint8Array,
): DevicePointer {
  const poolArgument = handleArgument(pool, 'pool');
  // The driver reads 64 bytes whatever the array's length: a shorter one would be read past its end.
  const dataBytes = viewByteLength(data);
  if (dataBytes < POOL_POINTER_EXPORT_SIZE) {
    throw new RangeError(
      `memPoolImportPointer: data must hold ${POOL_POINTER_EXPORT_SIZE} bytes, got ${dataBytes}`,
    );
  }
  state.check(
    state.native.cuMemPoolImportPointer(state.scratch.address, poolArgument, data),
    'cuMemPoolImportPointer',
  );
  return state.scratch.u64[0]!;
}
