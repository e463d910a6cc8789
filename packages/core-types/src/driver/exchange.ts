// Sharing memory beyond this process's JS: IPC handles and file descriptors for other processes,
// and the native calls that exchanging memory with native code (DLPack) needs.
import type { DevicePointer, DriverHandle } from './handles.js';

/**
 * Cross-process sharing of classic allocations and events (`cuIpc*`), and the descriptor
 * duplication that pool and VMM sharing needs. Part of {@link Driver}.
 */
export interface DriverInterprocess {
  /** `cuIpcGetMemHandle`: 64 bytes for a `memAlloc` allocation. */
  ipcGetMemHandle(pointer: DevicePointer): Uint8Array;
  /** `cuIpcOpenMemHandle`. `flags`: `IpcMemFlags`. */
  ipcOpenMemHandle(handle: Uint8Array, flags: number): DevicePointer;
  /** `cuIpcCloseMemHandle`. */
  ipcCloseMemHandle(pointer: DevicePointer): void;
  /**
   * `cuIpcGetEventHandle`: 64 bytes naming an event created with
   * `EventFlags.Interprocess | EventFlags.DisableTiming`, for another process's
   * {@link ipcOpenEventHandle}. Requires `capabilities.interprocess`.
   */
  ipcGetEventHandle(event: DriverHandle): Uint8Array;
  /**
   * `cuIpcOpenEventHandle`: an event of another process, to wait on (`streamWaitEvent`,
   * `eventSynchronize`, `eventQuery`) or record; destroy it with {@link DriverStreams.eventDestroy}.
   * @throws RangeError when `handle` is not 64 bytes.
   */
  ipcOpenEventHandle(handle: Uint8Array): DriverHandle;
  /**
   * A new descriptor for the open file `fd` refers to: POSIX `fcntl(fd, F_DUPFD_CLOEXEC, 0)`
   * (`dup` that is not inherited across exec). Not a driver call; Node has no `dup`. The caller
   * owns the result and closes it (`fs.closeSync`); `fd` stays open and stays the caller's.
   * Errors come from driver-kit's `checkFileDescriptor` and `duplicateDescriptorError`.
   * @throws TypeError / RangeError for a number that is not a descriptor; RangeError with
   *   `code` 'EBADF' when `fd` is not open; Error with `code` (e.g. 'EMFILE') for other failures.
   */
  duplicateFileDescriptor(fd: number): number;
}

/**
 * What exchanging memory with native code (DLPack) needs from an adapter: a native release
 * function for structs cumem exports, a read of native memory that cannot crash, and a call of
 * a producer's native deleter. Part of {@link Driver}.
 */
export interface DriverNativeExchange {
  /**
   * The address of a native function that, called as `void release(void *self)` from any
   * thread (the JS thread need not run), stores a 32-bit integer of at least 1000 in the 4
   * bytes at `self` and touches nothing else: the loaded driver's `cuDriverGetVersion` (one
   * pointer argument, its result ignored, as the C calling conventions of x86-64 and AArch64
   * allow). cumem makes it the deleter of the DLPack structs it exports and watches those 4
   * bytes to learn that the consumer is done. Loads the driver.
   */
  nativeReleaseFunction(): DevicePointer;
  /**
   * A copy of `size` bytes of this process's memory at `address` (POSIX `process_vm_readv` on
   * the own process, so an unmapped address is an error, never a crash). Not a driver call.
   * @throws RangeError when any of the bytes cannot be read (`EFAULT`), or `size` is over 1 MiB.
   */
  readNativeMemory(address: DevicePointer, size: number): Uint8Array;
  /**
   * Calls the native function at `fn` as `void fn(void *arg)` on the calling thread. Not a
   * driver call.
   *
   * **Unsafe:** `fn` must be the address of a function of that signature (a DLPack deleter a
   * producer handed over); any other address crashes the process or worse.
   */
  callNativeFunction(fn: DevicePointer, arg: DevicePointer): void;
}
