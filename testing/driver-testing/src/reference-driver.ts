import {
  type DevicePointer,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  type DriverCapabilities,
  type DriverHandle,
  type DriverOptions,
  EventFlags,
  type Memcpy2D,
  type Memcpy3D,
  StreamFlags,
  viewByteLength,
  viewBytes,
} from '@cumem/core-types';
import { copy2D, copy3D, fill } from './reference/copy-engine.js';
import { cudaError } from './reference/cuda-errors.js';
import {
  deviceAttribute,
  deviceAttributeLimit,
  deviceUuid,
  referenceDeviceName,
} from './reference/device-table.js';
import type { PoolState } from './reference/pool-state.js';
import { referenceDriverVersion } from './reference/reference-capabilities.js';
import { ReferenceNativeExchange } from './reference/reference-native-exchange.js';
import { ReferenceState } from './reference/reference-state.js';

/** Options of {@link createReferenceDriver}; `libraryPath` is accepted and ignored. */
export interface ReferenceDriverOptions extends DriverOptions {
  /** Number of fake devices, 1 to 16. Default 1. */
  readonly deviceCount?: number;
  /** Memory of each fake device in bytes (what `cuDeviceTotalMem` reports and allocation is limited to). Default 8 GiB. */
  readonly totalMemory?: number;
}

const gibibyte = 1024 * 1024 * 1024;
/** `cuCtxGetStreamPriorityRange` of a compute capability 9.0 device: 0 is the least priority, -5 the greatest. */
const priorityRange = { least: 0, greatest: -5 } as const;

/**
 * A host-memory implementation of the whole {@link Driver} contract, so every layer above the
 * adapters can be tested without a GPU. It passes the same conformance suite as the real
 * adapters: fake devices and primary contexts, allocations backed by ArrayBuffers at fake
 * 64-bit addresses that are never reused, pools with real-looking accounting, streams that run
 * work at once, managed-memory advice and prefetch records, and the driver's error codes.
 * Cross-process sharing is not emulated (`capabilities.interprocess` is false).
 */
export function createReferenceDriver(options: ReferenceDriverOptions = {}): Driver {
  const deviceCount = options.deviceCount ?? 1;
  if (!Number.isInteger(deviceCount) || deviceCount < 1 || deviceCount > 16) {
    throw new RangeError(`deviceCount must be an integer from 1 to 16, got ${String(deviceCount)}`);
  }
  const totalMemory = options.totalMemory ?? 8 * gibibyte;
  if (!Number.isSafeInteger(totalMemory) || totalMemory <= 0) {
    throw new RangeError(`totalMemory must be a positive safe integer, got ${String(totalMemory)}`);
  }
  const legacy = options.entryPoints === 'legacy';
  return new ReferenceDriver(new ReferenceState({ deviceCount, totalMemory, legacy }));
}

class ReferenceDriver extends ReferenceNativeExchange implements Driver {
  readonly name = 'reference';
  readonly contractVersion = DRIVER_CONTRACT_VERSION;
  readonly driverVersion = referenceDriverVersion;
  readonly capabilities: DriverCapabilities;

  constructor(state: ReferenceState) {
    super(state);
    this.capabilities = state.capabilities;
  }

  // --- Devices ---------------------------------------------------------------------------
  deviceGetCount(): number {
    return this.state.settings.deviceCount;
  }
  deviceGetName(ordinal: number): string {
    this.state.checkDevice(ordinal, 'cuDeviceGetName');
    return referenceDeviceName;
  }
  deviceGetUuid(ordinal: number): Uint8Array {
    this.state.checkDevice(ordinal, 'cuDeviceGetUuid');
    return deviceUuid(ordinal);
  }
  deviceTotalMem(ordinal: number): number {
    this.state.checkDevice(ordinal, 'cuDeviceTotalMem');
    return this.state.settings.totalMemory;
  }
  deviceGetAttribute(attribute: number, ordinal: number): number {
    this.state.checkDevice(ordinal, 'cuDeviceGetAttribute');
    if (!Number.isInteger(attribute) || attribute < 1 || attribute >= deviceAttributeLimit) {
      throw cudaError('cuDeviceGetAttribute', 'CUDA_ERROR_INVALID_VALUE');
    }
    return deviceAttribute(attribute, ordinal);
  }
  deviceGetDefaultMemPool(ordinal: number): DriverHandle {
    this.state.checkDevice(ordinal, 'cuDeviceGetDefaultMemPool');
    return (this.state.defaultPools[ordinal] as PoolState).handle;
  }
  deviceGetMemPool(ordinal: number): DriverHandle {
    // cuda.h lists only CUDA_ERROR_INVALID_VALUE for cuDeviceGetMemPool, also for a bad device.
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= this.state.settings.deviceCount) {
      throw cudaError('cuDeviceGetMemPool', 'CUDA_ERROR_INVALID_VALUE');
    }
    return (this.state.defaultPools[ordinal] as PoolState).handle;
  }

  // --- Contexts --------------------------------------------------------------------------
  primaryContextRetain(ordinal: number): DriverHandle {
    this.state.checkDevice(ordinal, 'cuDevicePrimaryCtxRetain');
    this.state.retainCounts[ordinal] = (this.state.retainCounts[ordinal] as number) + 1;
    return this.state.contexts[ordinal] as bigint;
  }
  primaryContextRelease(ordinal: number): void {
    this.state.checkDevice(ordinal, 'cuDevicePrimaryCtxRelease');
    const count = this.state.retainCounts[ordinal] as number;
    if (count === 0) throw cudaError('cuDevicePrimaryCtxRelease', 'CUDA_ERROR_INVALID_CONTEXT');
    this.state.retainCounts[ordinal] = count - 1;
    if (count === 1) this.state.destroyContext(ordinal);
  }
  contextSetCurrent(context: DriverHandle): void {
    if (context !== 0n && !this.state.contexts.includes(context)) {
      throw cudaError('cuCtxSetCurrent', 'CUDA_ERROR_INVALID_CONTEXT');
    }
    this.state.current = context;
  }
  contextGetCurrent(): DriverHandle {
    return this.state.current;
  }
  contextGetDevice(): number {
    return this.state.requireContext('cuCtxGetDevice');
  }
  contextSynchronize(): void {
    this.state.requireContext('cuCtxSynchronize');
    this.state.synchronized();
  }
  memGetInfo(): { free: number; total: number } {
    const device = this.state.requireContext('cuMemGetInfo');
    const total = this.state.settings.totalMemory;
    return { free: total - this.state.deviceUsed(device), total };
  }
  contextGetStreamPriorityRange(): { least: number; greatest: number } {
    this.state.requireContext('cuCtxGetStreamPriorityRange');
    return { ...priorityRange };
  }

  // --- Streams and events ------------------------------------------------------------------
  streamCreate(flags: number, priority: number): DriverHandle {
    const call = 'cuStreamCreateWithPriority';
    this.state.requireContext(call);
    if (flags !== StreamFlags.Default && flags !== StreamFlags.NonBlocking)
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    if (!Number.isInteger(priority)) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    // The driver clamps a priority outside the range instead of failing.
    const clamped = Math.min(priorityRange.least, Math.max(priorityRange.greatest, priority));
    const handle = this.state.newHandle();
    this.state.streams.set(handle, { context: this.state.current, flags, priority: clamped });
    return handle;
  }
  streamDestroy(stream: DriverHandle): void {
    if (!this.state.streams.delete(stream)) throw cudaError('cuStreamDestroy', 'CUDA_ERROR_INVALID_HANDLE');
  }
  streamSynchronize(stream: DriverHandle): void {
    this.state.checkStream(stream, 'cuStreamSynchronize');
    this.state.synchronized();
  }
  streamSynchronizeAsync(stream: DriverHandle): Promise<void> {
    return afterMacrotask(() => this.streamSynchronize(stream));
  }
  streamQuery(stream: DriverHandle): boolean {
    this.state.checkStream(stream, 'cuStreamQuery');
    return true;
  }
  streamWaitEvent(stream: DriverHandle, event: DriverHandle): void {
    this.state.checkStream(stream, 'cuStreamWaitEvent');
    this.state.event(event, 'cuStreamWaitEvent');
  }
  eventCreate(flags: number): DriverHandle {
    const call = 'cuEventCreate';
    this.state.requireContext(call);
    const known = EventFlags.BlockingSync | EventFlags.DisableTiming | EventFlags.Interprocess;
    if (!Number.isInteger(flags) || (flags & ~known) !== 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    // cuda.h: an interprocess event must also disable timing.
    if (flags & EventFlags.Interprocess && !(flags & EventFlags.DisableTiming)) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    const handle = this.state.newHandle();
    this.state.events.set(handle, { context: this.state.current, flags, recordedAt: undefined });
    return handle;
  }
  eventDestroy(event: DriverHandle): void {
    if (!this.state.events.delete(event)) throw cudaError('cuEventDestroy', 'CUDA_ERROR_INVALID_HANDLE');
  }
  eventRecord(event: DriverHandle, stream: DriverHandle): void {
    const record = this.state.event(event, 'cuEventRecord');
    this.state.checkStream(stream, 'cuEventRecord');
    record.recordedAt = performance.now();
  }
  eventSynchronize(event: DriverHandle): void {
    this.state.event(event, 'cuEventSynchronize');
    this.state.synchronized();
  }
  eventSynchronizeAsync(event: DriverHandle): Promise<void> {
    return afterMacrotask(() => this.eventSynchronize(event));
  }
  eventQuery(event: DriverHandle): boolean {
    this.state.event(event, 'cuEventQuery');
    return true;
  }
  eventElapsedTime(start: DriverHandle, end: DriverHandle): number {
    const call = 'cuEventElapsedTime';
    const first = this.state.event(start, call);
    const second = this.state.event(end, call);
    // cuda.h: unrecorded events and events without timing give CUDA_ERROR_INVALID_HANDLE.
    if (first.recordedAt === undefined || second.recordedAt === undefined)
      throw cudaError(call, 'CUDA_ERROR_INVALID_HANDLE');
    if ((first.flags | second.flags) & EventFlags.DisableTiming)
      throw cudaError(call, 'CUDA_ERROR_INVALID_HANDLE');
    return second.recordedAt - first.recordedAt;
  }

  // --- Classic allocation --------------------------------------------------------------------
  memAlloc(size: number): DevicePointer {
    const device = this.state.requireContext('cuMemAlloc');
    return this.state.allocate(size, 'device', 'memAlloc', device, 'cuMemAlloc').start;
  }
  memFree(pointer: DevicePointer): void {
    const call = 'cuMemFree';
    this.state.requireContext(call);
    const allocation = this.state.allocationAt(pointer, call);
    if (allocation.origin === 'memHostAlloc') throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    this.state.release(allocation);
  }
  memHostAlloc(size: number, flags: number): DevicePointer {
    const call = 'cuMemHostAlloc';
    const device = this.state.requireContext(call);
    if (!Number.isInteger(flags) || (flags & ~7) !== 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return this.state.allocate(size, 'host', 'memHostAlloc', device, call).start;
  }
  memFreeHost(pointer: DevicePointer): void {
    const call = 'cuMemFreeHost';
    this.state.requireContext(call);
    const allocation = this.state.allocationAt(pointer, call);
    if (allocation.origin !== 'memHostAlloc') throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    this.state.release(allocation);
  }
  memAllocManaged(size: number, flags: number): DevicePointer {
    const call = 'cuMemAllocManaged';
    const device = this.state.requireContext(call);
    // cuda.h: flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST.
    if (flags !== 1 && flags !== 2) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    return this.state.allocate(size, 'managed', 'memAllocManaged', device, call).start;
  }

  // --- Copies and fills -------------------------------------------------------------------
  memcpyAsync(dst: DevicePointer, src: DevicePointer, size: number, stream: DriverHandle): void {
    const call = 'cuMemcpyAsync';
    this.state.refuseUnreachable(this.state.streamDevice(stream, call), call, src, dst);
    const from = this.state.unifiedBytes(src, size, call);
    this.state.unifiedBytes(dst, size, call).set(from);
  }
  memcpyHtoDAsync(dst: DevicePointer, src: ArrayBufferView, stream: DriverHandle): void {
    const device = this.state.streamDevice(stream, 'cuMemcpyHtoDAsync');
    this.state.deviceSideBytes(dst, viewByteLength(src), 'cuMemcpyHtoDAsync', device).set(bytesOf(src));
  }
  memcpyDtoHAsync(dst: ArrayBufferView, src: DevicePointer, stream: DriverHandle): void {
    const device = this.state.streamDevice(stream, 'cuMemcpyDtoHAsync');
    bytesOf(dst).set(this.state.deviceSideBytes(src, viewByteLength(dst), 'cuMemcpyDtoHAsync', device));
  }
  memcpyHtoD(dst: DevicePointer, src: ArrayBufferView): void {
    const device = this.state.requireContext('cuMemcpyHtoD');
    this.state.deviceSideBytes(dst, viewByteLength(src), 'cuMemcpyHtoD', device).set(bytesOf(src));
  }
  memcpyDtoH(dst: ArrayBufferView, src: DevicePointer): void {
    const device = this.state.requireContext('cuMemcpyDtoH');
    bytesOf(dst).set(this.state.deviceSideBytes(src, viewByteLength(dst), 'cuMemcpyDtoH', device));
  }
  memcpy2DAsync(copy: Memcpy2D, stream: DriverHandle): void {
    this.state.checkStream(stream, 'cuMemcpy2DAsync');
    copy2D(copy, (address, size, call) => this.state.unifiedBytes(address, size, call));
  }
  memcpy3DAsync(copy: Memcpy3D, stream: DriverHandle): void {
    this.state.checkStream(stream, 'cuMemcpy3DAsync');
    copy3D(copy, (address, size, call) => this.state.unifiedBytes(address, size, call));
  }
  memcpyBatchAsync(
    dsts: BigUint64Array,
    srcs: BigUint64Array,
    sizes: BigUint64Array,
    count: number,
    stream: DriverHandle,
  ): void {
    const call = 'cuMemcpyBatchAsync';
    this.state.refuseBatchInLegacyMode(call, 'batchMemcpy');
    const device = this.state.contexts.indexOf(this.state.checkBatchStream(stream, call));
    if (!Number.isInteger(count) || count < 1 || count > Math.min(dsts.length, srcs.length, sizes.length)) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    // Check every copy before doing any, so a bad entry leaves memory untouched.
    const copies = Array.from({ length: count }, (_, index) => {
      const size = Number(sizes[index]);
      this.state.refuseUnreachable(device, call, srcs[index] as bigint, dsts[index] as bigint);
      return {
        from: this.state.unifiedBytes(srcs[index] as bigint, size, call),
        to: this.state.unifiedBytes(dsts[index] as bigint, size, call),
      };
    });
    for (const { from, to } of copies) to.set(from);
  }
  memsetD8Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    this.memset(pointer, value, count, stream, 1, 'cuMemsetD8Async');
  }
  memsetD16Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    this.memset(pointer, value, count, stream, 2, 'cuMemsetD16Async');
  }
  memsetD32Async(pointer: DevicePointer, value: number, count: number, stream: DriverHandle): void {
    this.memset(pointer, value, count, stream, 4, 'cuMemsetD32Async');
  }

  private memset(
    pointer: bigint,
    value: number,
    count: number,
    stream: bigint,
    size: 1 | 2 | 4,
    call: string,
  ): void {
    this.state.refuseUnreachable(this.state.streamDevice(stream, call), call, pointer);
    // The 16- and 32-bit forms need an address aligned to the element size.
    if (pointer % BigInt(size) !== 0n) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    fill(this.state.driverBytes(pointer, count * size, call), value, size);
  }
}

// A view's bytes as its internal slots hold them, as the adapters read JS memory (N-API asks V8):
// neither an own property nor a replaced prototype getter sizes or places a copy.
function bytesOf(view: ArrayBufferView): Uint8Array {
  return viewBytes(view);
}

// The real adapters wait on a worker thread; resolving after a macrotask keeps callers honest
// about awaiting instead of assuming the work is already done when the call returns.
function afterMacrotask(work: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    setImmediate(() => {
      try {
        work();
        resolve();
      } catch (error) {
        reject(error);
      }
    });
  });
}
