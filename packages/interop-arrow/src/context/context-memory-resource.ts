// The memory resources behind a Context's CudaBuffers. pyarrow.cuda allocates with `cuMemAlloc`
// (not a stream-ordered pool) so that `cuIpcGetMemHandle` can export the memory, and counts it
// in `bytesAllocated`; IPC mappings opened with `cuIpcOpenMemHandle` are closed with
// `cuIpcCloseMemHandle`. Both are @cumem/memory resources, so every CudaBuffer is a
// @cumem/memory Buffer underneath: one finalizer (the Buffer's) frees memory that was dropped
// without close(), and host views of the memory follow @cumem/memory's safety contract.

import { Buffer as MemoryBuffer, MemoryResource } from '@cumem/memory';
import { freezeBuiltIn } from '@cumem/memory/internal';
import { type ContextState, enterContext } from './context-internals.js';

/** `cuMemAlloc` memory of one Context's device, counted in its `bytesAllocated`. */
export class ContextMemoryResource extends MemoryResource {
  readonly #state: ContextState;

  constructor(state: ContextState) {
    super();
    this.#state = state;
    freezeBuiltIn(this, new.target, ContextMemoryResource);
  }

  /** `size` bytes (> 0) with `cuMemAlloc`, owned by the returned Buffer. */
  allocate(size: number): MemoryBuffer {
    const state = this.#state;
    enterContext(state);
    const address = state.driver.memAlloc(size);
    state.bytesAllocated += size;
    return MemoryBuffer.fromHandle(address, size, { mr: this });
  }

  /** `cuMemFree` (synchronous, so no stream ordering is needed). */
  deallocate(pointer: bigint | number, size: number): void {
    const state = this.#state;
    enterContext(state);
    state.driver.memFree(BigInt(pointer));
    state.bytesAllocated -= size;
  }

  get isDeviceAccessible(): boolean {
    return true;
  }

  get isHostAccessible(): boolean {
    return false;
  }

  get deviceId(): number {
    return this.#state.device.ordinal;
  }
}

/** Memory another process exported, opened with `cuIpcOpenMemHandle`; closing it unmaps it. */
export class IpcMappingResource extends MemoryResource {
  readonly #state: ContextState;

  constructor(state: ContextState) {
    super();
    this.#state = state;
    freezeBuiltIn(this, new.target, IpcMappingResource);
  }

  /** Mappings come from {@link open}; nothing is allocated here. */
  allocate(): MemoryBuffer {
    throw new TypeError('IPC mappings are opened with Context.openIpcBuffer, not allocated');
  }

  /** A Buffer owning the mapping of `size` bytes at `address` (from `cuIpcOpenMemHandle`). */
  open(address: bigint, size: number): MemoryBuffer {
    return MemoryBuffer.fromHandle(address, size, { mr: this });
  }

  /** `cuIpcCloseMemHandle`. */
  deallocate(pointer: bigint | number): void {
    enterContext(this.#state);
    this.#state.driver.ipcCloseMemHandle(BigInt(pointer));
  }

  get isDeviceAccessible(): boolean {
    return true;
  }

  get isHostAccessible(): boolean {
    return false;
  }

  override get isMapped(): boolean {
    return true;
  }

  get deviceId(): number {
    return this.#state.device.ordinal;
  }
}
