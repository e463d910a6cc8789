// The reference driver's compute members: libraries of PTX kernels, their functions per device,
// attributes, occupancy, and launches that run the built-in kernels (builtin-kernels.ts) on the
// CPU at once, as the reference's streams run all work at once.
import {
  type DriverHandle,
  FunctionAttribute,
  type KernelLaunchConfig,
  type KernelParameterInfo,
  LaunchDeviceAttribute,
} from '@cumem/core-types';
import { builtinKernels, type KernelMemory } from './builtin-kernels.js';
import { cudaError } from './cuda-errors.js';
import { deviceAttribute } from './device-table.js';
import { imageKind, type PtxEntry, parsePtx } from './ptx-module.js';
import { ReferencePoolQueries } from './reference-pool-queries.js';

interface KernelRecord {
  readonly library: DriverHandle;
  readonly entry: PtxEntry;
}
interface FunctionRecord {
  readonly kernel: KernelRecord;
  readonly device: number;
  maxDynamicShared: number;
}

/** Registers per thread the reference reports for every kernel. */
const referenceRegisters = 16;
/** Dynamic shared memory a function may use before `cuFuncSetAttribute` raises it (48 KiB, as on the driver). */
const defaultDynamicShared = 48 * 1024;

/** Modules, kernels and launches of the reference driver. */
export abstract class ReferenceCompute extends ReferencePoolQueries {
  private readonly libraries = new Map<DriverHandle, Map<string, PtxEntry>>();
  private readonly kernels = new Map<DriverHandle, KernelRecord>();
  private readonly functions = new Map<DriverHandle, FunctionRecord>();

  libraryLoadData(image: Uint8Array): DriverHandle {
    const call = 'cuLibraryLoadData';
    const kind = imageKind(image);
    // Machine code needs a GPU; the reference runs only the PTX kernels it knows.
    if (kind !== 'ptx') throw cudaError(call, 'CUDA_ERROR_NOT_SUPPORTED');
    const end = image.indexOf(0);
    const text = new TextDecoder().decode(end < 0 ? image : image.subarray(0, end));
    const entries = parsePtx(text);
    if (entries === null) throw cudaError(call, 'CUDA_ERROR_INVALID_PTX');
    const handle = this.state.newHandle();
    this.libraries.set(handle, new Map(entries.map((entry) => [entry.name, entry])));
    return handle;
  }
  libraryUnload(library: DriverHandle): void {
    if (!this.libraries.delete(library)) throw cudaError('cuLibraryUnload', 'CUDA_ERROR_INVALID_HANDLE');
    for (const [handle, kernel] of this.kernels) if (kernel.library === library) this.kernels.delete(handle);
    for (const [handle, fn] of this.functions)
      if (fn.kernel.library === library) this.functions.delete(handle);
  }
  libraryGetKernel(library: DriverHandle, name: string): DriverHandle {
    const entries = this.libraries.get(library);
    if (entries === undefined) throw cudaError('cuLibraryGetKernel', 'CUDA_ERROR_INVALID_HANDLE');
    const entry = entries.get(name);
    if (entry === undefined) throw cudaError('cuLibraryGetKernel', 'CUDA_ERROR_NOT_FOUND');
    const handle = this.state.newHandle();
    this.kernels.set(handle, { library, entry });
    return handle;
  }
  kernelGetFunction(kernel: DriverHandle): DriverHandle {
    const device = this.state.requireContext('cuKernelGetFunction');
    const record = this.kernels.get(kernel);
    if (record === undefined) throw cudaError('cuKernelGetFunction', 'CUDA_ERROR_INVALID_HANDLE');
    for (const [handle, fn] of this.functions)
      if (fn.kernel === record && fn.device === device) return handle;
    const handle = this.state.newHandle();
    this.functions.set(handle, { kernel: record, device, maxDynamicShared: defaultDynamicShared });
    return handle;
  }
  funcGetAttribute(attribute: number, fn: DriverHandle): number {
    const record = this.functionRecord(fn, 'cuFuncGetAttribute');
    switch (attribute) {
      case FunctionAttribute.MaxThreadsPerBlock:
        return deviceAttribute(LaunchDeviceAttribute.MaxThreadsPerBlock, record.device);
      case FunctionAttribute.NumRegs:
        return referenceRegisters;
      case FunctionAttribute.PtxVersion:
        return 75;
      case FunctionAttribute.BinaryVersion:
        return 90;
      case FunctionAttribute.MaxDynamicSharedSizeBytes:
        return record.maxDynamicShared;
      case FunctionAttribute.SharedSizeBytes:
      case FunctionAttribute.ConstSizeBytes:
      case FunctionAttribute.LocalSizeBytes:
        return 0;
      default:
        if (Number.isInteger(attribute) && attribute >= 0 && attribute < 20) return 0;
        throw cudaError('cuFuncGetAttribute', 'CUDA_ERROR_INVALID_VALUE');
    }
  }
  funcSetAttribute(attribute: number, fn: DriverHandle, value: number): void {
    const call = 'cuFuncSetAttribute';
    const record = this.functionRecord(fn, call);
    const limit = deviceAttribute(LaunchDeviceAttribute.MaxSharedMemoryPerBlockOptin, record.device);
    if (attribute !== FunctionAttribute.MaxDynamicSharedSizeBytes || value < 0 || value > limit) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    record.maxDynamicShared = value;
  }
  funcGetParamInfo(fn: DriverHandle, index: number): KernelParameterInfo | null {
    const parameter = this.functionRecord(fn, 'cuFuncGetParamInfo').kernel.entry.parameters[index];
    return parameter === undefined ? null : { offset: parameter.offset, size: parameter.size };
  }
  launchKernelEx(
    fn: DriverHandle,
    config: KernelLaunchConfig,
    argumentBytes: Uint8Array,
    argumentOffsets: Uint32Array,
    stream: DriverHandle,
  ): void {
    const call = 'cuLaunchKernelEx';
    const record = this.functionRecord(fn, call);
    if (this.state.streamDevice(stream, call) !== record.device)
      throw cudaError(call, 'CUDA_ERROR_INVALID_HANDLE');
    this.checkGeometry(record, config, call);
    const { parameters } = record.kernel.entry;
    // The driver reads one pointer per parameter: fewer would make it read past the array.
    if (argumentOffsets.length !== parameters.length) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    parameters.forEach((parameter, index) => {
      if ((argumentOffsets[index] as number) + parameter.size > argumentBytes.byteLength) {
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
      }
    });
    const builtin = builtinKernels.get(record.kernel.entry.name);
    const types = parameters.map((parameter) => parameter.type);
    if (builtin === undefined || builtin.types.join() !== types.join()) {
      throw cudaError(call, 'CUDA_ERROR_NOT_SUPPORTED');
    }
    const view = new DataView(argumentBytes.buffer, argumentBytes.byteOffset, argumentBytes.byteLength);
    try {
      builtin.run({
        config,
        parameters: view,
        offsets: argumentOffsets,
        memory: this.kernelMemory(record.device),
      });
    } catch {
      // A GPU reports the fault at the next synchronization; the reference, which ran the
      // kernel already, reports it from the launch.
      throw cudaError(call, 'CUDA_ERROR_ILLEGAL_ADDRESS');
    }
  }
  occupancyMaxActiveBlocksPerMultiprocessor(
    fn: DriverHandle,
    blockSize: number,
    dynamicSharedMemBytes: number,
  ): number {
    const call = 'cuOccupancyMaxActiveBlocksPerMultiprocessor';
    const record = this.functionRecord(fn, call);
    if (!Number.isInteger(blockSize) || blockSize <= 0 || dynamicSharedMemBytes < 0) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    // A compute capability 9.0 multiprocessor: 2048 threads, 64 K registers, 228 KiB of shared memory.
    const byThreads = Math.floor(2048 / blockSize);
    const byRegisters = Math.floor(65536 / (blockSize * referenceRegisters));
    const shared = deviceAttribute(LaunchDeviceAttribute.MaxSharedMemoryPerBlockOptin, record.device) + 1024;
    const byShared = dynamicSharedMemBytes === 0 ? 32 : Math.floor(shared / dynamicSharedMemBytes);
    return Math.min(32, byThreads, byRegisters, byShared);
  }
  occupancyMaxPotentialBlockSize(
    fn: DriverHandle,
    dynamicSharedMemBytes: number,
    blockSizeLimit: number,
  ): { minGridSize: number; blockSize: number } {
    const call = 'cuOccupancyMaxPotentialBlockSize';
    const record = this.functionRecord(fn, call);
    const most = deviceAttribute(LaunchDeviceAttribute.MaxThreadsPerBlock, record.device);
    const limit = blockSizeLimit === 0 ? most : Math.min(most, blockSizeLimit);
    let best = { blockSize: 0, threads: 0 };
    for (let size = 32; size <= limit; size += 32) {
      const threads = size * this.occupancyMaxActiveBlocksPerMultiprocessor(fn, size, dynamicSharedMemBytes);
      if (threads >= best.threads) best = { blockSize: size, threads };
    }
    if (best.blockSize === 0) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    const perMultiprocessor = best.threads / best.blockSize;
    const multiprocessors = deviceAttribute(16, record.device);
    return { minGridSize: perMultiprocessor * multiprocessors, blockSize: best.blockSize };
  }

  private functionRecord(fn: DriverHandle, call: string): FunctionRecord {
    const record = this.functions.get(fn);
    if (record === undefined) throw cudaError(call, 'CUDA_ERROR_INVALID_HANDLE');
    return record;
  }

  private checkGeometry(record: FunctionRecord, config: KernelLaunchConfig, call: string): void {
    const limit = (attribute: number) => deviceAttribute(attribute, record.device);
    const { grid, block, cluster, sharedMemBytes } = config;
    const gridLimits = [
      LaunchDeviceAttribute.MaxGridDimX,
      LaunchDeviceAttribute.MaxGridDimY,
      LaunchDeviceAttribute.MaxGridDimZ,
    ];
    const blockLimits = [
      LaunchDeviceAttribute.MaxBlockDimX,
      LaunchDeviceAttribute.MaxBlockDimY,
      LaunchDeviceAttribute.MaxBlockDimZ,
    ];
    for (let axis = 0; axis < 3; axis++) {
      const g = grid[axis] as number;
      const b = block[axis] as number;
      if (g < 1 || g > limit(gridLimits[axis] as number) || b < 1 || b > limit(blockLimits[axis] as number)) {
        throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
      }
      if (cluster !== null && (g % (cluster[axis] as number) !== 0 || (cluster[axis] as number) < 1)) {
        throw cudaError(call, 'CUDA_ERROR_INVALID_CLUSTER_SIZE');
      }
    }
    if (block[0] * block[1] * block[2] > limit(LaunchDeviceAttribute.MaxThreadsPerBlock)) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    if (sharedMemBytes > record.maxDynamicShared) throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
  }

  private kernelMemory(device: number): KernelMemory {
    return (address, size) => {
      const allocation = this.state.space.containing(address);
      if (allocation === undefined) throw new RangeError('illegal address');
      this.state.refuseUnreachable(device, 'kernel', address);
      const offset = Number(address - allocation.start);
      if (offset + size > allocation.size) throw new RangeError('illegal address');
      return new DataView(allocation.bytes.buffer, allocation.bytes.byteOffset + offset, size);
    };
  }
}
