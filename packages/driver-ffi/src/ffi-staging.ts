// Pageable host memory over koffi: cuMemHostRegister / cuMemHostUnregister, and the staged
// copies. koffi cannot start native threads, so a staged copy here is the driver's own copy
// from pageable memory (cuMemcpyHtoD / cuMemcpyDtoH) after the stream's queued work: the same
// bytes and ordering as the N-API engine, at the driver's single-threaded speed (see README,
// "Pageable memory").
import {
  checkStagedCopyOptions,
  type DevicePointer,
  type DriverHandle,
  type StagedCopyOptions,
} from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { handleArgument } from './handle-argument.js';
import { addressOf, hostAddress } from './host-memory.js';

export function memHostRegister(state: DriverState, view: ArrayBufferView | ArrayBuffer, flags: number): DevicePointer {
  const address = addressOf(view);
  state.check(state.native.cuMemHostRegister_v2(Number(address), view.byteLength, flags), 'cuMemHostRegister');
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
  state.check(state.native.cuMemcpyHtoD_v2(handleArgument(dst), hostAddress(src), src.byteLength), 'cuMemcpyHtoD');
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
  state.check(state.native.cuMemcpyDtoH_v2(hostAddress(dst), handleArgument(src), dst.byteLength), 'cuMemcpyDtoH');
}
