// Pageable host memory over koffi: cuMemHostRegister / cuMemHostUnregister, and the staged
// copies, which run on the worker threads of staging-engine.ts. Should the workers be unable to
// run (no worker_threads, a worker that died), a staged copy is the driver's own copy from
// pageable memory (cuMemcpyHtoD / cuMemcpyDtoH): the same bytes, at the driver's speed.
import {
  checkStagedCopyOptions,
  type DevicePointer,
  type DriverHandle,
  type StagedCopyOptions,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { cudaError } from './error-check.js';
import { handleArgument } from './handle-argument.js';
import { addressOf, hostAddress } from './host-memory.js';
import { stagingEngine } from './staging-engine.js';

export function memHostRegister(
  state: DriverState,
  view: ArrayBufferView | ArrayBuffer,
  flags: number,
): DevicePointer {
  const address = addressOf(view);
  state.check(
    state.native.cuMemHostRegister_v2(Number(address), view.byteLength, flags),
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
  if (src.byteLength === 0) return;
  state.check(state.native.cuStreamSynchronize(handleArgument(stream)), 'cuStreamSynchronize');
  if (engineCopy(state, true, hostAddress(src), dst, src.byteLength, options)) return;
  state.check(
    state.native.cuMemcpyHtoD_v2(handleArgument(dst), hostAddress(src), src.byteLength),
    'cuMemcpyHtoD',
  );
}

export function stagedCopyDtoH(
  state: DriverState,
  dst: ArrayBufferView,
  src: DevicePointer,
  stream: DriverHandle,
  options: StagedCopyOptions,
): void {
  checkStagedCopyOptions('stagedCopyDtoH', options);
  if (dst.byteLength === 0) return;
  state.check(state.native.cuStreamSynchronize(handleArgument(stream)), 'cuStreamSynchronize');
  if (engineCopy(state, false, hostAddress(dst), src, dst.byteLength, options)) return;
  state.check(
    state.native.cuMemcpyDtoH_v2(hostAddress(dst), handleArgument(src), dst.byteLength),
    'cuMemcpyDtoH',
  );
}

// The worker_threads engine (staging-engine.ts) is opt-in: with it, the vitest process running
// the FFI conformance suite on an H200 died after the staged-copy cases (the workers each load
// koffi and libcuda; not yet understood). Until that is, the FFI adapter copies pageable memory
// with the driver's own copy, which is safe, and CUMEM_FFI_STAGING_WORKERS=1 turns the engine on.
const workersEnabled = process.env.CUMEM_FFI_STAGING_WORKERS === '1';

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
