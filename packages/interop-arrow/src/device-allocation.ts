// One driver allocation behind CudaBuffers: `cuMemAlloc` memory (so `cuIpcGetMemHandle` works,
// as in pyarrow.cuda) or a mapping opened with `cuIpcOpenMemHandle`. Views share the record;
// the owning CudaBuffer frees it on close(), or the FinalizationRegistry does when it is dropped.

import type { DevicePointer } from '@cumem/core-types';
import { type ContextState, enterContext } from './context-internals.js';

/** Shared by a CudaBuffer that owns memory and all views of it. */
export interface DeviceAllocation {
  readonly address: DevicePointer;
  readonly size: number;
  /** `'device'`: cuMemAlloc, counted in `bytesAllocated`. `'ipc'`: opened IPC mapping. */
  readonly kind: 'device' | 'ipc';
  readonly context: ContextState;
  released: boolean;
}

/** Frees the allocation once; later calls do nothing. */
export function releaseAllocation(allocation: DeviceAllocation): void {
  if (allocation.released) return;
  allocation.released = true;
  const state = allocation.context;
  enterContext(state);
  if (allocation.kind === 'device') {
    state.driver.memFree(allocation.address);
    state.bytesAllocated -= allocation.size;
  } else {
    state.driver.ipcCloseMemHandle(allocation.address);
  }
}

// A finalizer must never throw (it would surface as an uncaught exception at a random time);
// a failure here means the driver is gone or the process is exiting, when the memory goes anyway.
const finalizer = new FinalizationRegistry<DeviceAllocation>((allocation) => {
  try {
    releaseAllocation(allocation);
  } catch {
    // see above
  }
});

/** Frees `allocation` when `owner` is garbage-collected without close(). */
export function trackAllocation(owner: object, allocation: DeviceAllocation): void {
  finalizer.register(owner, allocation, allocation);
}

/** Stops tracking (after an explicit close). */
export function untrackAllocation(allocation: DeviceAllocation): void {
  finalizer.unregister(allocation);
}
