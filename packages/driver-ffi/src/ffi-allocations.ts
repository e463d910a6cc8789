// Classic allocation: device, page-locked host and managed memory, and legacy CUDA IPC.

import { type DevicePointer, type DriverHandle, IPC_HANDLE_SIZE, viewByteLength } from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { handleArgument, intArgument, sizeArgument } from './handle-argument.js';

export function memAlloc(state: DriverState, size: number): DevicePointer {
  state.check(state.native.cuMemAlloc_v2(state.scratch.address, sizeArgument(size)), 'cuMemAlloc');
  return state.scratch.u64[0]!;
}

export function memFree(state: DriverState, pointer: DevicePointer): void {
  state.check(state.native.cuMemFree_v2(handleArgument(pointer, 'pointer')), 'cuMemFree');
}

export function memHostAlloc(state: DriverState, size: number, flags: number): DevicePointer {
  state.check(
    state.native.cuMemHostAlloc(state.scratch.address, sizeArgument(size), intArgument(flags, 'flags')),
    'cuMemHostAlloc',
  );
  return state.scratch.u64[0]!;
}

export function memFreeHost(state: DriverState, pointer: DevicePointer): void {
  state.check(state.native.cuMemFreeHost(handleArgument(pointer, 'pointer')), 'cuMemFreeHost');
}

export function memAllocManaged(state: DriverState, size: number, flags: number): DevicePointer {
  state.check(
    state.native.cuMemAllocManaged(state.scratch.address, sizeArgument(size), intArgument(flags, 'flags')),
    'cuMemAllocManaged',
  );
  return state.scratch.u64[0]!;
}

export function ipcGetMemHandle(state: DriverState, pointer: DevicePointer): Uint8Array {
  const handle = new Uint8Array(IPC_HANDLE_SIZE);
  state.check(
    state.native.cuIpcGetMemHandle(handle, handleArgument(pointer, 'pointer')),
    'cuIpcGetMemHandle',
  );
  return handle;
}

export function ipcOpenMemHandle(state: DriverState, handle: Uint8Array, flags: number): DevicePointer {
  const handleBytes = viewByteLength(handle);
  if (handleBytes !== IPC_HANDLE_SIZE) {
    throw new RangeError(`ipcOpenMemHandle: handle must hold ${IPC_HANDLE_SIZE} bytes, got ${handleBytes}`);
  }
  // CUipcMemHandle is passed by value: koffi copies the 64 bytes into the call.
  state.check(
    state.native.cuIpcOpenMemHandle_v2(
      state.scratch.address,
      { reserved: handle },
      intArgument(flags, 'flags'),
    ),
    'cuIpcOpenMemHandle',
  );
  return state.scratch.u64[0]!;
}

export function ipcCloseMemHandle(state: DriverState, pointer: DevicePointer): void {
  state.check(state.native.cuIpcCloseMemHandle(handleArgument(pointer, 'pointer')), 'cuIpcCloseMemHandle');
}

export function ipcGetEventHandle(state: DriverState, event: DriverHandle): Uint8Array {
  const handle = new Uint8Array(IPC_HANDLE_SIZE);
  state.check(
    state.native.cuIpcGetEventHandle(handle, handleArgument(event, 'event')),
    'cuIpcGetEventHandle',
  );
  return handle;
}

export function ipcOpenEventHandle(state: DriverState, handle: Uint8Array): DriverHandle {
  const handleBytes = viewByteLength(handle);
  if (handleBytes !== IPC_HANDLE_SIZE) {
    throw new RangeError(`ipcOpenEventHandle: handle must hold ${IPC_HANDLE_SIZE} bytes, got ${handleBytes}`);
  }
  // CUipcEventHandle has the layout of CUipcMemHandle (64 opaque bytes), passed by value alike.
  state.check(
    state.native.cuIpcOpenEventHandle(state.scratch.address, { reserved: handle }),
    'cuIpcOpenEventHandle',
  );
  return state.scratch.u64[0]!;
}
