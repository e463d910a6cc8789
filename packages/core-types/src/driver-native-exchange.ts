import type { DevicePointer } from './driver-types.js';

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
