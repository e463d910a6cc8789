// Managed memory: advice, prefetch (single and batched), discard, and range attributes. With
// `capabilities.memoryLocations` the CUmemLocation forms (`_v2`, CUDA 12.2) are used; otherwise
// the CUDA 8.0 forms that take a CUdevice, emulated with `_v2` where the driver no longer has them.

import {
  CU_DEVICE_CPU,
  CU_DEVICE_INVALID,
  type DevicePointer,
  type DriverHandle,
  type MemLocation,
  MemLocationType,
} from '@cumem/core-types';
import { driverLocationId } from '@cumem/driver-kit';
import type { DriverState, StateMember } from './driver-state.js';
import { requireLength } from './ffi-copies.js';
import { deviceGetCount, deviceHandle } from './ffi-devices.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';
import { locationArgument, packLocation, packsLocationAsInteger } from './location-argument.js';
import { notSupported, requireLocationSupported } from './location-support.js';
import { SCRATCH_BYTES } from './native-scratch.js';

const CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3;
const twoTo32 = 4294967296;
// Device ordinals below this pack into a number exactly (id * 2**32 + type < 2**53).
const smallDeviceIdLimit = 1 << 20;
// The last pointer advised and its koffi argument: a setter toggled on one buffer converts it
// once. A bigint is a value, so an equal pointer converts to the same argument.
let advisedPointer: bigint | undefined;
let advisedArgument: number | bigint = 0;

// The driver state whose advice takes the packed CUDA 12.2 form, and its bound cuMemAdvise_v2:
// the setters' call then checks one identity instead of reading the state's capabilities and
// bindings each time (a few ns of the adapter's share of memory.readMostlySet). Which form a
// state takes never changes; another state (a second driver) is asked again.
let packedAdviceState: DriverState | undefined;
let packedAdvise: (
  pointer: number | bigint,
  size: number,
  advice: number,
  location: number | bigint,
) => number = () => 0;

function takesPackedAdvice(state: DriverState): boolean {
  const { native } = state;
  if (!packsLocationAsInteger || !(state.capabilities.memoryLocations || !native.cuMemAdvise)) return false;
  const advise = native.cuMemAdvise_v2;
  if (advise === undefined) return false;
  packedAdvise = advise as typeof packedAdvise;
  packedAdviceState = state;
  return true;
}

/** A location's type and id as the N-API addon reads them: C ints (TypeError / RangeError otherwise). */
function locationInts(location: MemLocation): void {
  intArgument(location.type, 'type');
  intArgument(location.id, 'id');
}

/** The CUdevice argument of the CUDA 8.0 forms for a Device or Host location. */
function legacyDevice(
  state: DriverState,
  location: MemLocation,
  call: 'cuMemAdvise' | 'cuMemPrefetchAsync',
): number {
  if (location.type === MemLocationType.Device) return deviceHandle(state, location.id, call);
  if (location.type === MemLocationType.Host) return CU_DEVICE_CPU;
  return CU_DEVICE_INVALID;
}

export function memAdvise(
  state: DriverState,
  pointer: DevicePointer,
  size: number,
  advice: number,
  location: MemLocation,
): void {
  // The advice setters' common case, kept small so the setter that calls it stays cheap: the
  // same pointer again, a device location, and a driver that takes the packed CUDA 12.2 form (see
  // location-argument.ts) make one call; everything else is out of line.
  const id = location.id;
  if (
    state === packedAdviceState &&
    pointer === advisedPointer &&
    Number.isSafeInteger(size) &&
    size >= 0 &&
    (advice | 0) === advice &&
    location.type === MemLocationType.Device &&
    (id | 0) === id &&
    id >= 0 &&
    id < smallDeviceIdLimit
  ) {
    const result = packedAdvise(advisedArgument, size, advice, id * twoTo32 + MemLocationType.Device);
    if (result !== 0) state.check(result, 'cuMemAdvise');
    return;
  }
  adviseOutOfLine(state, pointer, size, advice, location);
}

function adviseOutOfLine(
  state: DriverState,
  pointer: DevicePointer,
  size: number,
  advice: number,
  location: MemLocation,
): void {
  // The contract's argument order and rules, as the N-API addon reads them.
  handleArgument(pointer, 'pointer');
  sizeArgument(size);
  intArgument(advice, 'advice');
  locationInts(location);
  // A device location's words inline, not through the general helpers below (a measurable part of
  // this call's cost): a device location has nothing for requireLocationSupported to refuse.
  // Whether the driver takes that form is asked once per driver state (packedAdviceState).
  if (location.type === MemLocationType.Device && (state === packedAdviceState || takesPackedAdvice(state))) {
    const id = location.id;
    const packed =
      id >= 0 && id < smallDeviceIdLimit
        ? id * twoTo32 + MemLocationType.Device
        : packLocation(MemLocationType.Device, id);
    if (pointer !== advisedPointer) {
      advisedArgument = handleArgument(pointer);
      advisedPointer = pointer;
    }
    const result = packedAdvise(advisedArgument, size, advice, packed);
    if (result !== 0) state.check(result, 'cuMemAdvise');
    return;
  }
  const { native } = state;
  requireLocationSupported(state, location, 'cuMemAdvise');
  const result =
    state.capabilities.memoryLocations || !native.cuMemAdvise
      ? native.cuMemAdvise_v2!(handleArgument(pointer), size, advice, locationArgument(location))
      : native.cuMemAdvise(
          handleArgument(pointer),
          size,
          advice,
          legacyDevice(state, location, 'cuMemAdvise'),
        );
  if (result !== 0) state.check(result, 'cuMemAdvise');
}

export function memPrefetchAsync(
  state: DriverState,
  pointer: DevicePointer,
  size: number,
  location: MemLocation,
  stream: DriverHandle,
): void {
  const pointerArgument = handleArgument(pointer, 'pointer');
  const sizeChecked = sizeArgument(size);
  locationInts(location);
  requireLocationSupported(state, location, 'cuMemPrefetchAsync');
  const { native } = state;
  const result =
    state.capabilities.memoryLocations || !native.cuMemPrefetchAsync
      ? native.cuMemPrefetchAsync_v2!(
          pointerArgument,
          sizeChecked,
          locationArgument(location),
          0,
          handleArgument(stream, 'stream'),
        )
      : native.cuMemPrefetchAsync(
          pointerArgument,
          sizeChecked,
          legacyDevice(state, location, 'cuMemPrefetchAsync'),
          handleArgument(stream, 'stream'),
        );
  if (result !== 0) state.check(result, 'cuMemPrefetchAsync');
}

/** `CUmemLocation[]` as the driver reads it: (type, id) pairs of int32. */
function encodeLocations(state: DriverState, locations: readonly MemLocation[], call: string): Int32Array {
  const encoded = new Int32Array(locations.length * 2);
  locations.forEach((location, index) => {
    requireLocationSupported(state, location, call);
    encoded[index * 2] = location.type;
    encoded[index * 2 + 1] = driverLocationId(location);
  });
  return encoded;
}

type BatchPrefetchCall = 'cuMemPrefetchBatchAsync' | 'cuMemDiscardAndPrefetchBatchAsync';
/** Both batched prefetch members take the same parameters (the contract's memPrefetchBatchAsync). */
type BatchPrefetch = StateMember<'memPrefetchBatchAsync'>;

// The contract's parameters, then which of the two entry points (same parameters) to call.
const prefetchBatch: (...args: [...Parameters<BatchPrefetch>, call: BatchPrefetchCall]) => void = (
  state,
  pointers,
  sizes,
  count,
  locations,
  locationStarts,
  stream,
  call,
) => {
  if (!state.capabilities.batchPrefetchDiscard) throw notSupported(state, call, 'batchPrefetchDiscard');
  requireLength(call, count, { pointers, sizes });
  if (locationStarts.length !== locations.length) {
    throw new RangeError(
      `${call}: ${locations.length} locations but ${locationStarts.length} locationStarts`,
    );
  }
  const encoded = encodeLocations(state, locations, call);
  if (count === 0) return;
  const starts = BigUint64Array.from(locationStarts, (start) => BigInt(start));
  const fn =
    call === 'cuMemPrefetchBatchAsync'
      ? state.native.cuMemPrefetchBatchAsync
      : state.native.cuMemDiscardAndPrefetchBatchAsync;
  state.check(fn!(pointers, sizes, count, encoded, starts, locations.length, 0, stream), call);
};

// (state, pointers, sizes, count, locations, locationStarts, stream), as the contract has them.
export const memPrefetchBatchAsync: BatchPrefetch = (t, p, z, n, l, k, s) =>
  prefetchBatch(t, p, z, n, l, k, s, 'cuMemPrefetchBatchAsync');

export const memDiscardAndPrefetchBatchAsync: BatchPrefetch = (t, p, z, n, l, k, s) =>
  prefetchBatch(t, p, z, n, l, k, s, 'cuMemDiscardAndPrefetchBatchAsync');

export const memDiscardBatchAsync: StateMember<'memDiscardBatchAsync'> = (
  state,
  pointers,
  sizes,
  count,
  stream,
) => {
  if (!state.capabilities.batchPrefetchDiscard) {
    throw notSupported(state, 'cuMemDiscardBatchAsync', 'batchPrefetchDiscard');
  }
  requireLength('cuMemDiscardBatchAsync', count, { pointers, sizes });
  if (count === 0) return;
  state.check(
    state.native.cuMemDiscardBatchAsync!(pointers, sizes, count, 0, stream),
    'cuMemDiscardBatchAsync',
  );
};

export function memRangeGetAttribute(
  state: DriverState,
  pointer: DevicePointer,
  size: number,
  attribute: number,
): number {
  const { address, i32 } = state.scratch;
  i32[0] = 0;
  state.check(
    state.native.cuMemRangeGetAttribute(
      address,
      4,
      intArgument(attribute, 'attribute'),
      handleArgument(pointer, 'pointer'),
      sizeArgument(size),
    ),
    'cuMemRangeGetAttribute',
  );
  return i32[0]!;
}

export function memRangeGetAccessedBy(state: DriverState, pointer: DevicePointer, size: number): number[] {
  const pointerArgument = handleArgument(pointer, 'pointer');
  const sizeChecked = sizeArgument(size);
  // One int32 per possible accessor: every device and the CPU (CU_DEVICE_CPU), so device count + 1.
  // Sized to the device count alone, the driver drops the last accessor: with the CPU and
  // device 0 advised, a real driver returned [0] instead of [-1, 0]. Unused entries come back CU_DEVICE_INVALID.
  const slots = Math.min(deviceGetCount(state) + 1, SCRATCH_BYTES / 4);
  const { address, i32 } = state.scratch;
  i32.fill(CU_DEVICE_INVALID, 0, slots);
  state.check(
    state.native.cuMemRangeGetAttribute(
      address,
      slots * 4,
      CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
      pointerArgument,
      sizeChecked,
    ),
    'cuMemRangeGetAttribute',
  );
  // cuda.h calls the entries "device ids", as it calls a CUmemLocation's id the device ordinal
  // (its example: "only device 0 has the advice set"): they are ordinals, returned as they are,
  // like the N-API adapter and memRangeGetAttribute's PREFERRED_LOCATION.
  const result: number[] = [];
  for (let index = 0; index < slots; index++) {
    const device = i32[index]!;
    if (device !== CU_DEVICE_INVALID) result.push(device);
  }
  return result;
}
