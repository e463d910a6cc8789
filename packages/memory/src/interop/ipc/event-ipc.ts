// Interprocess events: cuda.h requires CU_EVENT_INTERPROCESS together with
// CU_EVENT_DISABLE_TIMING, and the 64-byte handle (CUipcEventHandle) opens in any process on
// the same machine (cuIpcOpenEventHandle), for example CuPy's `runtime.ipcOpenEventHandle`.
import { describeValue, EventFlags, IPC_HANDLE_SIZE } from '@cumem/core-types';

// Events made with the Interprocess flag, so `ipcHandle` refuses the others with a TypeError
// before asking the driver; for an event opened from another process's handle, the handle it was
// opened from, since the driver refuses cuIpcGetEventHandle on an opened event
// (CUDA_ERROR_INVALID_HANDLE) and cuda.core answers with the descriptor it imported. A WeakMap, so
// Event itself carries no extra field.
const interprocessEvents = new WeakMap<object, Uint8Array | null>();

/** @internal The `EventFlags` of an interprocess event (timing must be off). */
export const interprocessEventFlags = EventFlags.Interprocess | EventFlags.DisableTiming;

/**
 * @internal Marks `event` as created as interprocess (`openedFrom` null) or opened from the
 * handle bytes `openedFrom` (kept as given: pass a copy the caller cannot change).
 */
export function markInterprocess(event: object, openedFrom: Uint8Array | null = null): void {
  interprocessEvents.set(event, openedFrom);
}

/** @internal True when `event` was created or opened as interprocess. */
export function isInterprocess(event: object): boolean {
  return interprocessEvents.has(event);
}

/** @internal The handle an opened event was opened from (a fresh copy); null for any other event. */
export function openedHandle(event: object): Uint8Array | null {
  return interprocessEvents.get(event)?.slice() ?? null;
}

/**
 * @internal The 64 handle bytes as a Uint8Array (any ArrayBufferView or ArrayBuffer accepted).
 * @throws TypeError for a non-binary value; RangeError when it is not 64 bytes.
 */
export function checkEventHandleBytes(bytes: unknown): Uint8Array {
  let view: Uint8Array;
  if (bytes instanceof ArrayBuffer) view = new Uint8Array(bytes);
  else if (ArrayBuffer.isView(bytes)) view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  else throw new TypeError(`handle must be the bytes of event.ipcHandle, got ${describeValue(bytes)}`);
  if (view.byteLength !== IPC_HANDLE_SIZE) {
    throw new RangeError(`an event IPC handle has ${IPC_HANDLE_SIZE} bytes, got ${view.byteLength}`);
  }
  return view;
}
