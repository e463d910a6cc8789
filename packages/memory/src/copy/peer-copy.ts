// Copies between the memory of two devices. Policy (README, "Several GPUs"): a copy between GPUs
// always works. It goes through cuMemcpyAsync when the stream's device can reach both ends
// (plain cuMemAlloc memory always can; pool memory of another device only once the pool grants
// that device access, `peerAccessibleBy`), and through cuMemcpyPeerAsync otherwise. cumem never
// grants pool access on its own: that maps every allocation of the pool into the other device,
// can take seconds, and is the pool owner's decision. It does enable context peer access
// (cuCtxEnablePeerAccess) between primary contexts the first time a copy needs it, where the
// hardware allows: that only speeds up cuMemAlloc memory, which the driver otherwise stages
// through the host, many times slower (bench/README.md has the figures).
import {
  CudaError,
  checkAddress,
  checkBoolean,
  checkInteger,
  MemAccessFlags,
  MemLocationType,
  PointerHandleAttribute,
} from '@cumem/core-types';
import { virtualAccess } from '../resources/virtual/virtual-ranges.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { perRuntimeState } from '../runtime/per-runtime-state.js';
import { inStreamOrderOn } from '../stream/device-stream-order.js';
import { runtimeDefaultStream, Stream } from '../stream/stream.js';

/**
 * `size` bytes from `src` to `dst` where the ends may live on different devices. `srcDevice` /
 * `dstDevice`: the device whose own memory the end is, or -1 for memory every device reaches
 * (page-locked host, managed). Without a stream the copy goes on device `ordinal`'s default
 * stream and the call waits for it.
 */
export function copyAcrossDevices(
  runtime: DriverRuntime,
  dst: bigint,
  dstDevice: number,
  src: bigint,
  srcDevice: number,
  size: number,
  stream: Stream | undefined,
  ordinal: number,
): void {
  if (size === 0) return;
  const target = stream ?? runtimeDefaultStream(runtime, ordinal);
  const on = target.ordinal;
  runtime.makeCurrent(on);
  const driver = runtime.driver;
  // The one device whose own memory the copy touches (the other end is memory every device
  // reaches, or the same device), -1 when it touches two devices' memory or none.
  const single = srcDevice < 0 ? dstDevice : dstDevice < 0 || dstDevice === srcDevice ? srcDevice : -1;
  // Both ends on one device: that device copies (it always reaches its own memory).
  const reached =
    srcDevice >= 0 && srcDevice === dstDevice
      ? srcDevice === on
      : reaches(runtime, on, src, srcDevice, false) && reaches(runtime, on, dst, dstDevice, true);
  if (single >= 0 && single !== on && !reached) {
    // Only one device's memory, which the stream's device cannot reach: the copy runs on that
    // device, in stream order. cuMemcpyPeerAsync would not do: it refuses host memory.
    inStreamOrderOn(runtime, target, single, (own) => {
      runtime.makeCurrent(single);
      driver.memcpyAsync(dst, src, size, own.streamHandle);
    });
  } else if (reached) {
    driver.memcpyAsync(dst, src, size, target.streamHandle);
  } else {
    const dstContext = runtime.context(dstDevice < 0 ? on : dstDevice);
    const srcContext = runtime.context(srcDevice < 0 ? on : srcDevice);
    runtime.makeCurrent(on);
    driver.memcpyPeerAsync(dst, dstContext, src, srcContext, size, target.streamHandle);
  }
  if (stream === undefined) driver.streamSynchronize(target.streamHandle);
}

/**
 * Whether a copy engine of device `on` may read (or, with `write`, also write) memory at
 * `pointer`, memory of `device` (-1: every device reaches it). Asked only for copies between
 * devices, never on the hot path.
 */
export function reaches(
  runtime: DriverRuntime,
  on: number,
  pointer: bigint,
  device: number,
  write: boolean,
): boolean {
  if (device < 0 || device === on) return true;
  const vmm = virtualAccess(runtime, pointer, on);
  if (vmm !== undefined) return accessAllows(vmm, write);
  return poolReaches(runtime, on, memoryPoolOf(runtime, pointer), device, write);
}

export function accessAllows(access: number, write: boolean): boolean {
  return write ? access === MemAccessFlags.ReadWrite : access !== MemAccessFlags.None;
}

// Whether device `on` may read (`write`: and write) memory of `pool` (0n: memory of no pool) on
// another device. Pool access can change at any time, so it is asked every time.
export function poolReaches(
  runtime: DriverRuntime,
  on: number,
  pool: bigint,
  device: number,
  write: boolean,
): boolean {
  if (pool !== 0n) {
    return accessAllows(
      runtime.driver.memPoolGetAccess(pool, { type: MemLocationType.Device, id: on }),
      write,
    );
  }
  enableContextPeerAccess(runtime, on, device);
  return true;
}

/** The pool an allocation came from, or 0n for memory of no pool. */
export function memoryPoolOf(runtime: DriverRuntime, pointer: bigint): bigint {
  try {
    return runtime.driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.MempoolHandle);
  } catch (error) {
    // Memory the driver did not allocate from a pool may answer an error instead of 0 (the
    // attribute is documented for pool memory). Treated as plain memory: an ordinary copy is
    // tried, and fails visibly if the memory was out of reach after all.
    if (CudaError.isInstance(error)) return 0n;
    throw error;
  }
}

/** Device pairs "from>to" whose context peer access was enabled or found impossible, per runtime. */
const peerAccessDecidedOf = perRuntimeState(() => new Set<string>());

/** Lets device `from`'s primary context access `to`'s cuMemAlloc memory directly, once, where possible. */
export function enableContextPeerAccess(runtime: DriverRuntime, from: number, to: number): void {
  const decided = peerAccessDecidedOf(runtime);
  const key = `${from}>${to}`;
  if (decided.has(key)) return;
  decided.add(key);
  if (!runtime.driver.deviceCanAccessPeer(from, to)) return;
  const peer = runtime.context(to);
  runtime.makeCurrent(from);
  try {
    runtime.driver.contextEnablePeerAccess(peer);
  } catch (error) {
    // Only a speed-up (CUDA_ERROR_TOO_MANY_PEERS, say, leaves it off): the copy works without it.
    if (!CudaError.isInstance(error)) throw error;
  }
}

/**
 * For @cumem/utils and @cumem/interop-arrow: `size` bytes between memory of two
 * devices (or the same one), ordered on `stream`, by the policy above. `dstDevice` /
 * `srcDevice`: the device whose own memory each end is, -1 for memory every device reaches.
 *
 * **Unsafe:** cumem cannot check raw pointers here (no size, owner or lifetime checks). The
 * caller must guarantee that `size` bytes at `dst` and at `src` are allocated memory of the
 * devices named, and stay allocated until the copy has run on `stream`. Otherwise the copy
 * writes memory it does not own or faults on the device. Buffer copies (`copyFrom` / `copyTo`)
 * are the checked way.
 */
export function copyBetweenDevices(
  dst: bigint,
  dstDevice: number,
  src: bigint,
  srcDevice: number,
  size: number,
  stream: Stream,
): void {
  checkStreamArgument(stream);
  copyAcrossDevices(stream.runtime, dst, dstDevice, src, srcDevice, size, stream, stream.ordinal);
}

/**
 * For @cumem/utils and @cumem/interop-arrow: whether work on `stream`'s device can
 * read (`write`: and write) memory at `pointer` of device `device` (-1: memory every device
 * reaches) with ordinary copies. Makes driver calls only when `device` is another device.
 */
export function reachableOn(stream: Stream, pointer: bigint, device: number, write: boolean): boolean {
  checkStreamArgument(stream);
  return reaches(
    stream.runtime,
    stream.ordinal,
    checkAddress(pointer, 'pointer'),
    checkInteger(device, 'device'),
    checkBoolean(write, 'write'),
  );
}

// The helpers above are exported for the sibling packages, which pass their own checked values;
// a caller outside gets a TypeError for anything but a Stream rather than an engine error.
export function checkStreamArgument(stream: unknown): void {
  if (!Stream.isStream(stream)) throw new TypeError('stream must be a Stream of @cumem/memory');
}
