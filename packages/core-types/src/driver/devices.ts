// Devices, their primary contexts and the calling thread's current context: the Driver
// contract's members for finding the GPUs and choosing one.
import type { DeviceAttribute, P2PAttribute } from './constants.js';
import type { DriverHandle } from './handles.js';

/** Devices, primary contexts and the current context. Part of {@link Driver}. */
export interface DriverDevices {
  /** `cuDeviceGetCount`. */
  deviceGetCount(): number;
  /** `cuDeviceGetName`. */
  deviceGetName(ordinal: number): string;
  /** `cuDeviceGetUuid`: 16 bytes. */
  deviceGetUuid(ordinal: number): Uint8Array;
  /** `cuDeviceTotalMem`, in bytes. */
  deviceTotalMem(ordinal: number): number;
  /** `cuDeviceGetAttribute`. */
  deviceGetAttribute(attribute: DeviceAttribute | number, ordinal: number): number;
  /** `cuDeviceGetDefaultMemPool`. */
  deviceGetDefaultMemPool(ordinal: number): DriverHandle;
  /** `cuDeviceGetMemPool`: the pool `cuMemAllocAsync` uses on this device now. */
  deviceGetMemPool(ordinal: number): DriverHandle;
  /** `cuDeviceCanAccessPeer`: whether device `ordinal` can directly access memory of device `peerOrdinal`. */
  deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean;
  /** `cuDeviceGetP2PAttribute`: a `P2PAttribute` of the link from device `srcOrdinal` to `dstOrdinal`. */
  deviceGetP2PAttribute(attribute: P2PAttribute | number, srcOrdinal: number, dstOrdinal: number): number;

  /** `cuDevicePrimaryCtxRetain`: retains (reference-counted) and returns the primary context. */
  primaryContextRetain(ordinal: number): DriverHandle;
  /** `cuDevicePrimaryCtxRelease`: drops one reference taken by {@link primaryContextRetain}. */
  primaryContextRelease(ordinal: number): void;
  /** `cuCtxSetCurrent` for the calling thread. `0n` unbinds. */
  contextSetCurrent(context: DriverHandle): void;
  /** `cuCtxGetCurrent`: `0n` when none is current. */
  contextGetCurrent(): DriverHandle;
  /** `cuCtxGetDevice`: ordinal of the current context's device (its `CUdevice` mapped back). The cheapest real driver call; benchmarks time it. */
  contextGetDevice(): number;
  /** `cuCtxSynchronize`. */
  contextSynchronize(): void;
  /** `cuMemGetInfo` for the current context's device, in bytes. */
  memGetInfo(): { free: number; total: number };
  /** `cuCtxGetStreamPriorityRange`: `greatest` is the numerically lowest (highest) priority. */
  contextGetStreamPriorityRange(): { least: number; greatest: number };
  /**
   * `cuCtxEnablePeerAccess(peerContext, 0)`: the current context may access `cuMemAlloc` memory
   * of `peerContext` directly. `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED` is treated as success,
   * so calling it twice is harmless; `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` is thrown.
   */
  contextEnablePeerAccess(peerContext: DriverHandle): void;
}
