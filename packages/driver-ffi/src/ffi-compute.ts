// Modules, kernels and launches over koffi. A launch writes CUlaunchConfig, its one
// CUlaunchAttribute (the cluster dimension) and the kernelParams pointer array into a native
// block kept per driver, so a launch allocates nothing native. Layouts from cuda.h 13.0 (also
// 12.x): CUlaunchConfig is 56 bytes (grid, block, sharedMemBytes as unsigned ints; hStream at
// 32; attrs at 40; numAttrs at 48); CUlaunchAttribute is 72 bytes (id at 0, the 64-byte value
// union at 8, whose clusterDim is three unsigned ints).
import {
  type DriverHandle,
  type KernelLaunchConfig,
  type KernelParameterInfo,
  NotSupportedError,
  viewBuffer,
  viewByteLength,
  viewByteOffset,
} from '@cumem/core-types';
import { packLaunchGeometry } from '@cumem/driver-kit';
import type { DriverState } from './driver-state.js';
import { handleArgument } from './handle-argument.js';
import { hostAddress } from './host-memory.js';

const configBytes = 56;
const attributeBytes = 72;
const pointersAt = configBytes + attributeBytes;
/** `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`. */
const clusterDimensionAttribute = 4;
/** `CUDA_ERROR_INVALID_VALUE`: what cuFuncGetParamInfo answers past the last parameter. */
const invalidValue = 1;

interface LaunchBlock {
  readonly pointer: unknown;
  readonly address: number;
  readonly u32: Uint32Array;
  readonly capacity: number;
  /** The last parameter bytes' ArrayBuffer and its address (hostAddress without its WeakMap). */
  lastBuffer: ArrayBufferLike | null;
  lastBase: number;
}
const launchBlocks = new WeakMap<DriverState, LaunchBlock>();

function launchBlock(state: DriverState, parameters: number): LaunchBlock {
  const existing = launchBlocks.get(state);
  if (existing !== undefined && existing.capacity >= parameters) return existing;
  const capacity = Math.max(parameters, 256);
  const size = pointersAt + capacity * 8;
  const pointer = state.koffi.alloc('uint8_t', size);
  const buffer = state.koffi.view(pointer, size);
  const address = Number(state.koffi.address(pointer));
  const block: LaunchBlock = {
    pointer,
    address,
    u32: new Uint32Array(buffer),
    capacity,
    lastBuffer: null,
    lastBase: 0,
  };
  // What no launch changes: config.attrs (the attribute after the config), its id and padding.
  const u64 = new BigUint64Array(buffer);
  u64[5] = BigInt(address + configBytes);
  u64[6] = 0n;
  block.u32[7] = 0;
  block.u32[14] = clusterDimensionAttribute;
  block.u32[15] = 0;
  launchBlocks.set(state, block);
  return block;
}

/** Writes `address` (a number or a bigint handle) as the 64-bit little-endian word at `u32[at]`. */
function writeAddress(u32: Uint32Array, at: number, address: number | bigint): void {
  if (typeof address === 'bigint') {
    u32[at] = Number(BigInt.asUintN(32, address));
    u32[at + 1] = Number(address >> 32n);
    return;
  }
  u32[at] = address % 0x1_0000_0000;
  u32[at + 1] = Math.floor(address / 0x1_0000_0000);
}

function bound<T>(fn: T | undefined, name: string): T {
  if (fn === undefined) throw new NotSupportedError(`${name} is missing from this libcuda`);
  return fn;
}

function encodeName(name: string): Uint8Array {
  const encoded = new TextEncoder().encode(name);
  const bytes = new Uint8Array(encoded.length + 1);
  bytes.set(encoded);
  return bytes;
}

export function libraryLoadData(state: DriverState, image: Uint8Array): DriverHandle {
  const load = bound(state.native.cuLibraryLoadData, 'cuLibraryLoadData');
  state.check(load(state.scratch.address, image, 0, 0, 0, 0, 0, 0), 'cuLibraryLoadData');
  return state.scratch.u64[0] as bigint;
}

export function libraryUnload(state: DriverState, library: DriverHandle): void {
  state.check(bound(state.native.cuLibraryUnload, 'cuLibraryUnload')(library), 'cuLibraryUnload');
}

export function libraryGetKernel(state: DriverState, library: DriverHandle, name: string): DriverHandle {
  const get = bound(state.native.cuLibraryGetKernel, 'cuLibraryGetKernel');
  state.check(get(state.scratch.address, library, encodeName(name)), 'cuLibraryGetKernel');
  return state.scratch.u64[0] as bigint;
}

export function kernelGetFunction(state: DriverState, kernel: DriverHandle): DriverHandle {
  const get = bound(state.native.cuKernelGetFunction, 'cuKernelGetFunction');
  state.check(get(state.scratch.address, kernel), 'cuKernelGetFunction');
  return state.scratch.u64[0] as bigint;
}

export function funcGetAttribute(state: DriverState, attribute: number, fn: DriverHandle): number {
  const get = bound(state.native.cuFuncGetAttribute, 'cuFuncGetAttribute');
  state.check(get(state.scratch.address, attribute, fn), 'cuFuncGetAttribute');
  return state.scratch.i32[0] as number;
}

export function funcSetAttribute(
  state: DriverState,
  attribute: number,
  fn: DriverHandle,
  value: number,
): void {
  const set = bound(state.native.cuFuncSetAttribute, 'cuFuncSetAttribute');
  state.check(set(fn, attribute, value), 'cuFuncSetAttribute');
}

export function funcGetParamInfo(
  state: DriverState,
  fn: DriverHandle,
  index: number,
): KernelParameterInfo | null {
  const get = state.capabilities.kernelParameterInfo ? state.native.cuFuncGetParamInfo : undefined;
  if (get === undefined)
    throw new NotSupportedError('funcGetParamInfo needs a CUDA 12.4 driver (cuFuncGetParamInfo)');
  const result = get(fn, index, state.scratch.address, state.scratch.address + 8);
  if (result === invalidValue) return null;
  state.check(result, 'cuFuncGetParamInfo');
  return { offset: Number(state.scratch.u64[0]), size: Number(state.scratch.u64[1]) };
}

export function launchKernelEx(
  state: DriverState,
  fn: DriverHandle,
  config: KernelLaunchConfig,
  argumentBytes: Uint8Array,
  argumentOffsets: Uint32Array,
  stream: DriverHandle,
): void {
  const launch = bound(state.native.cuLaunchKernelEx, 'cuLaunchKernelEx');
  const count = argumentOffsets.length;
  const block = launchBlock(state, count);
  // The CUlaunchConfig in place: geometry at words 0-6, the stream at byte 32, one cluster
  // attribute (its dimensions at words 16-18) counted at word 12. No BigInt made per launch.
  const u32 = block.u32;
  const clustered = packLaunchGeometry(config, u32, 16);
  writeAddress(u32, 8, handleArgument(stream));
  u32[12] = clustered ? 1 : 0;
  // The view's own facts (core-types view-facts.ts): a shadowed byteLength would let offsets point past it.
  const length = viewByteLength(argumentBytes);
  let base = 0;
  if (length !== 0) {
    const buffer = viewBuffer(argumentBytes);
    const byteOffset = viewByteOffset(argumentBytes);
    if (buffer !== block.lastBuffer) {
      block.lastBase = hostAddress(argumentBytes) - byteOffset;
      block.lastBuffer = buffer;
    }
    base = block.lastBase + byteOffset;
  }
  // One pointer per parameter into the packed bytes; none may point past them (as the N-API
  // adapter: the driver would read host memory the caller never passed).
  for (let index = 0; index < count; index++) {
    const offset = argumentOffsets[index] as number;
    if (offset >= length) throw new RangeError('launchKernelEx: an argument offset is past argumentBytes');
    writeAddress(u32, pointersAt / 4 + 2 * index, base + offset);
  }
  state.check(launch(block.address, handleArgument(fn), block.address + pointersAt, 0), 'cuLaunchKernelEx');
}

export function occupancyMaxActiveBlocksPerMultiprocessor(
  state: DriverState,
  fn: DriverHandle,
  blockSize: number,
  dynamicSharedMemBytes: number,
): number {
  const call = 'cuOccupancyMaxActiveBlocksPerMultiprocessor';
  const get = bound(state.native.cuOccupancyMaxActiveBlocksPerMultiprocessor, call);
  state.check(get(state.scratch.address, fn, blockSize, dynamicSharedMemBytes), call);
  return state.scratch.i32[0] as number;
}

export function occupancyMaxPotentialBlockSize(
  state: DriverState,
  fn: DriverHandle,
  dynamicSharedMemBytes: number,
  blockSizeLimit: number,
): { minGridSize: number; blockSize: number } {
  const call = 'cuOccupancyMaxPotentialBlockSize';
  const get = bound(state.native.cuOccupancyMaxPotentialBlockSize, call);
  // No callback: the dynamic shared memory is the same for every block size.
  state.check(
    get(state.scratch.address, state.scratch.address + 4, fn, 0, dynamicSharedMemBytes, blockSizeLimit),
    call,
  );
  return { minGridSize: state.scratch.i32[0] as number, blockSize: state.scratch.i32[1] as number };
}
