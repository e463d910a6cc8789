import {
  CudaError,
  type Driver,
  type DriverCapabilities,
  type DriverHandle,
  type EntryPointMode,
  MemAllocationType,
  MemHandleType,
  type MemLocation,
  MemLocationType,
  type MemPoolProperties,
  NotSupportedError,
} from '@cumem/core-types';
import { deriveCapabilities, symbolsOfVersion } from '@cumem/driver-kit';
import { expect } from 'vitest';

/** One mebibyte, in bytes. */
export const MiB = 1024 * 1024;

/**
 * `size` random bytes, none of them zero: a copy that silently did nothing, or copied from
 * zero-filled memory, can never pass for a correct one.
 */
export function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let index = 0; index < size; index++) bytes[index] = 1 + Math.floor(Math.random() * 255);
  return bytes;
}

// Adapters name the entry point they called: cuda.h's `cuMemAlloc` is the symbol
// `cuMemAlloc_v2`, and per-thread-stream builds add `_ptsz` / `_ptds`. All are the same call.
function callPattern(call: string): RegExp {
  return new RegExp(`^${call}(_v\\d+)?(_ptsz|_ptds)?$`);
}

function checkCudaError(error: unknown, call: string, codeName: string | undefined): CudaError {
  if (!CudaError.isInstance(error)) {
    throw new Error(`expected a CudaError from ${call}, got ${String(error)}`, { cause: error });
  }
  expect(error.call).toMatch(callPattern(call));
  expect(error.codeName).toMatch(/^CUDA_ERROR_[A-Z0-9_]+$/);
  expect(Number.isInteger(error.code) && error.code > 0).toBe(true);
  if (codeName !== undefined) expect(error.codeName).toBe(codeName);
  return error;
}

/**
 * Asserts `action` throws a CudaError from entry point `call`. `codeName` is checked only
 * where cuda.h documents that code for the case; elsewhere the real driver's choice of code
 * is not a promise, so the suite does not pin it.
 */
export function expectCudaError(action: () => unknown, call: string, codeName?: string): CudaError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`expected ${call} to fail with a CudaError, but it returned`);
  return checkCudaError(thrown, call, codeName);
}

/** Asserts `action` throws a NotSupportedError (a missing feature, refused before any driver call). */
export function expectNotSupported(action: () => unknown): NotSupportedError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  if (!NotSupportedError.isInstance(thrown)) {
    throw new Error(
      `expected a NotSupportedError, got ${thrown === undefined ? 'a return' : String(thrown)}`,
    );
  }
  return thrown;
}

/** Copies `size` bytes of device memory at `pointer` to a new host array (synchronously). */
export function readBack(driver: Driver, pointer: bigint, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  driver.memcpyDtoH(bytes, pointer);
  return bytes;
}

/** Runs `body` with a `memAlloc` allocation of `size` bytes, freed afterwards. */
export function withDeviceMemory<T>(driver: Driver, size: number, body: (pointer: bigint) => T): T {
  const pointer = driver.memAlloc(size);
  try {
    return body(pointer);
  } finally {
    driver.memFree(pointer);
  }
}

/** Properties of a pool of `allocationType` at `location`, without a size limit. */
export function poolProperties(
  allocationType: number,
  location: MemLocation,
  handleTypes: number = MemHandleType.None,
): MemPoolProperties {
  return { allocationType, location, handleTypes, maxSize: 0 };
}

/**
 * Runs `body` with `size` bytes of a new managed pool on `device` (allocated on `stream`), then
 * frees them, waits for the free and destroys the pool, also when `body` throws.
 */
export function withManagedPoolMemory<T>(
  driver: Driver,
  device: number,
  stream: DriverHandle,
  size: number,
  body: (pointer: bigint) => T,
): T {
  const pool = driver.memPoolCreate(
    poolProperties(MemAllocationType.Managed, { type: MemLocationType.Device, id: device }),
  );
  const pointer = driver.memAllocFromPoolAsync(size, pool, stream);
  try {
    return body(pointer);
  } finally {
    driver.memFreeAsync(pointer, stream);
    driver.streamSynchronize(stream);
    driver.memPoolDestroy(pool);
  }
}

/**
 * Asserts two byte arrays are equal. Fast on megabytes (vitest's deep equality walks element
 * by element); on a mismatch the message gives the first differing offset.
 */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  const left = Buffer.from(actual.buffer, actual.byteOffset, actual.length);
  const right = Buffer.from(expected.buffer, expected.byteOffset, expected.length);
  if (left.equals(right)) return;
  let offset = 0;
  while (left[offset] === right[offset]) offset++;
  throw new Error(
    `bytes differ first at offset ${offset} of ${expected.length}: got ${left[offset]}, expected ${right[offset]}`,
  );
}

/**
 * What driver-kit's rules say a driver of this version has in `mode`, assuming it exports every
 * optional entry point of its version (real drivers do). The reference driver shares nothing
 * across processes; an adapter does on Linux.
 */
export function expectedCapabilities(
  driver: Driver,
  mode: EntryPointMode,
  isReference: boolean,
): DriverCapabilities {
  return deriveCapabilities({
    resolved: symbolsOfVersion(driver.driverVersion),
    driverVersion: driver.driverVersion,
    mode,
    interprocess: !isReference && process.platform === 'linux',
  });
}
