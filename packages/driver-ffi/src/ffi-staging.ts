// Pageable host memory over koffi: cuMemHostRegister / cuMemHostUnregister, and the staged
// copies, which run on the worker threads of staging-engine.ts. Should the workers be unable to
// run (no worker_threads, a worker that died), a staged copy is the driver's own copy from
// pageable memory (cuMemcpyHtoD / cuMemcpyDtoH): the same bytes, at the driver's speed.
import {
  checkStagedCopyOptions,
  type DevicePointer,
  type DriverHandle,
  memoryByteLength,
  type StagedCopyOptions,
  viewByteLength,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { cudaError } from './error-check.js';
import { handleArgument } from './handle-argument.js';
import { addressOf, hostAddress } from './host-memory.js';
import { existingStagingEngine, stagingEngine } from './staging-engine.js';

export function memHostRegister(
  state: DriverState,
  view: ArrayBufferView | ArrayBuffer,
  flags: number,
): DevicePointer {
  const address = addressOf(view);
  state.check(
    state.native.cuMemHostRegister_v2(Number(address), memoryByteLength(view), flags),
    'cuMemHostRegister',
  );
  return address;
}

export function memHostUnregister(state: DriverState, pointer: DevicePointer): void {
  state.check(state.native.cuMemHostUnregister(Number(pointer)), 'cuMemHostUnregister');
}

export function stagedCopyHtoD(
  state: DriverState,
  dst: DevicePointer,
  src: ArrayBufferView,
  stream: DriverHandle,
  options: StagedCopyOptions,
): void {
  checkStagedCopyOptions('stagedCopyHtoD', options);
  const bytes = viewByteLength(src);
  if (bytes === 0) return;
  state.check(state.native.cuStreamSynchronize(handleArgument(stream)), 'cuStreamSynchronize');
  if (engineCopy(state, true, hostAddress(src), dst, bytes, options)) return;
  state.check(state.native.cuMemcpyHtoD_v2(handleArgument(dst), hostAddress(src), bytes), 'cuMemcpyHtoD');
}

export function stagedCopyDtoH(
  state: DriverState,
  dst: ArrayBufferView,
  src: DevicePointer,
  stream: DriverHandle,
  options: StagedCopyOptions,
): void {
  checkStagedCopyOptions('stagedCopyDtoH', options);
  const bytes = viewByteLength(dst);
  if (bytes === 0) return;
  state.check(state.native.cuStreamSynchronize(handleArgument(stream)), 'cuStreamSynchronize');
  if (engineCopy(state, false, hostAddress(dst), src, bytes, options)) return;
  state.check(state.native.cuMemcpyDtoH_v2(hostAddress(dst), handleArgument(src), bytes), 'cuMemcpyDtoH');
}

// The worker_threads engine (staging-engine.ts) is on unless CUMEM_FFI_STAGING_WORKERS=0, which
// makes every staged copy the driver's own copy. (It was opt-in while a crash after the
// staged-copy conformance cases was unexplained: workers kept pinned chunks across a reset of
// the primary context, which frees them and keeps its handle; see releaseStagingBefore.)
const workersEnabled = process.env.CUMEM_FFI_STAGING_WORKERS !== '0';

/**
 * Before a reference to `device`'s primary context is dropped: has the staging workers free
 * what they keep in it, while it certainly lives (a temporary reference of our own). The last
 * release resets the context, and the next retain returns the same handle, so the workers
 * could not tell their freed chunks from live ones. Costs nothing unless a worker keeps any.
 */
export function releaseStagingBefore(state: DriverState, device: number): void {
  const engine = existingStagingEngine(state.libraryPath);
  if (engine === undefined || !engine.holdsAny()) return;
  if (state.native.cuDevicePrimaryCtxRetain(state.scratch.address, device) !== 0) return;
  const context = state.scratch.u64[0]!;
  try {
    engine.releaseContext(context);
  } finally {
    state.native.cuDevicePrimaryCtxRelease_v2(device);
  }
}

/**
 * The copy on the staging workers, in the calling thread's current context. True when done;
 * false when the workers cannot run (the caller then copies directly); a driver error in a
 * worker becomes the CudaError of its entry point.
 */
function engineCopy(
  state: DriverState,
  toDevice: boolean,
  host: number,
  device: DevicePointer,
  bytes: number,
  options: StagedCopyOptions,
): boolean {
  if (!workersEnabled) return false;
  const engine = stagingEngine(state.libraryPath);
  if (engine.broken !== undefined) return false;
  state.check(state.native.cuCtxGetCurrent(state.scratch.address), 'cuCtxGetCurrent');
  const context = state.scratch.u64[0]!;
  const outcome = engine.run(toDevice, host, device, bytes, options.chunkBytes, options.threads, context);
  if (outcome.result === 0) return true;
  if (outcome.result < 0) return false;
  throw cudaError(state.describe, outcome.result, outcome.call);
}
