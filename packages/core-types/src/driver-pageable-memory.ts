import type { DevicePointer, DriverHandle, StagedCopyOptions } from './driver-types.js';

/**
 * Pageable host memory: registration in place and staged copies through page-locked chunks.
 * Part of {@link Driver}.
 */
export interface DriverPageableMemory {
  /**
   * `cuMemHostRegister_v2` over the bytes of `view` (all of an ArrayBuffer): page-locks them in
   * place so copies from and to them run at pinned speed. `flags`: `MemHostRegisterFlags`.
   * Returns the address of the first byte (what {@link memHostUnregister} takes). Unsafe by
   * nature: the memory must stay allocated until it is unregistered (see `@cumem/memory`'s
   * `registerHostMemory`, which guarantees that). Not for a zero-length view (the driver refuses it).
   */
  memHostRegister(view: ArrayBufferView | ArrayBuffer, flags: number): DevicePointer;
  /** `cuMemHostUnregister`: `pointer` is what {@link memHostRegister} returned. */
  memHostUnregister(pointer: DevicePointer): void;
  /**
   * All of `src` (pageable JS memory) to `dst`, through page-locked staging chunks on
   * `options.threads` native threads (the N-API adapter; the FFI adapter's equivalent is in its
   * README), in the calling thread's current context. Work queued on `stream` before the call
   * finishes first, and the copy is complete when the call returns (it blocks the calling
   * thread): the result is what `memcpyHtoD` gives, byte for byte. The staging chunks are
   * allocated on first use and kept by the driver object.
   * @throws TypeError when `options` is not an object; RangeError when `options.chunkBytes` is
   *   not a positive safe integer or `options.threads` not an integer from 1 to 64; both before
   *   any driver call.
   */
  stagedCopyHtoD(
    dst: DevicePointer,
    src: ArrayBufferView,
    stream: DriverHandle,
    options: StagedCopyOptions,
  ): void;
  /** All of `dst` (pageable JS memory) from `src`, as {@link stagedCopyHtoD} in the other direction. */
  stagedCopyDtoH(
    dst: ArrayBufferView,
    src: DevicePointer,
    stream: DriverHandle,
    options: StagedCopyOptions,
  ): void;
}
