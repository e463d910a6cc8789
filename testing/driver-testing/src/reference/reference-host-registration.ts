import {
  checkStagedCopyOptions,
  type DevicePointer,
  type DriverHandle,
  MemoryType,
  memoryByteLength,
  PointerAttribute,
  PointerHandleAttribute,
  type StagedCopyOptions,
  viewByteLength,
  viewBytes,
} from '@cumem/core-types';
import { stagedCopySlices } from '@cumem/driver-kit';
import { cudaError } from './cuda-errors.js';
import { ReferenceManaged } from './reference-managed.js';

/** `cuMemHostRegister` flags cuda.h defines: PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY. */
const knownRegisterFlags = 0xf;

/** One registered range of JS memory: its fake address and length, and the context it was registered in. */
interface RegisteredRange {
  readonly start: bigint;
  readonly size: number;
  readonly device: number;
  readonly context: bigint;
}

/**
 * Host-memory registration and the staged copies of the reference driver. Registration is
 * bookkeeping only (JS memory is already "host memory" here); the staged copies move the bytes
 * in exactly the slices and chunks the real engines use, so a wrong split shows up as wrong bytes.
 */
export abstract class ReferenceHostRegistration extends ReferenceManaged {
  private readonly registered: RegisteredRange[] = [];

  memHostRegister(view: ArrayBufferView | ArrayBuffer, flags: number): DevicePointer {
    const call = 'cuMemHostRegister';
    const device = this.state.requireContext(call);
    const start = this.addressOf(view);
    const size = memoryByteLength(view);
    if (!Number.isInteger(flags) || (flags & ~knownRegisterFlags) !== 0 || size === 0) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    const end = start + BigInt(size);
    // cuda.h: a range overlapping one already registered is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
    if (this.registered.some((range) => start < range.start + BigInt(range.size) && range.start < end)) {
      throw cudaError(call, 'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED');
    }
    this.registered.push({ start, size, device, context: this.state.current });
    return start;
  }

  // A real driver answers pointer queries on registered memory as on page-locked host memory
  // (cuda.core's tests wrap registered memory and read it as host- and device-accessible).
  override pointerGetAttribute(pointer: DevicePointer, attribute: number): number {
    const range = this.state.space.containing(pointer) ? undefined : this.registeredRangeOf(pointer);
    if (range === undefined) return super.pointerGetAttribute(pointer, attribute);
    switch (attribute) {
      case PointerAttribute.MemoryType:
        return MemoryType.Host;
      case PointerAttribute.IsManaged:
      case PointerAttribute.IsLegacyCudaIpcCapable:
      case PointerAttribute.AllowedHandleTypes:
        return 0;
      case PointerAttribute.DeviceOrdinal:
        return range.device;
      case PointerAttribute.RangeSize:
        return range.size;
      case PointerAttribute.Mapped:
        return 1;
      case PointerAttribute.AccessFlags:
        return 3;
      default:
        throw cudaError('cuPointerGetAttribute', 'CUDA_ERROR_INVALID_VALUE');
    }
  }

  override pointerGetHandleAttribute(pointer: DevicePointer, attribute: number): bigint {
    const range = this.state.space.containing(pointer) ? undefined : this.registeredRangeOf(pointer);
    if (range === undefined) return super.pointerGetHandleAttribute(pointer, attribute);
    switch (attribute) {
      case PointerHandleAttribute.Context:
        return range.context;
      case PointerHandleAttribute.DevicePointer:
      case PointerHandleAttribute.HostPointer:
        return pointer;
      case PointerHandleAttribute.RangeStartAddress:
        return range.start;
      case PointerHandleAttribute.MempoolHandle:
        return 0n;
      default:
        throw cudaError('cuPointerGetAttribute', 'CUDA_ERROR_INVALID_VALUE');
    }
  }

  private registeredRangeOf(pointer: DevicePointer): RegisteredRange | undefined {
    return this.registered.find(
      (range) => pointer >= range.start && pointer < range.start + BigInt(range.size),
    );
  }

  memHostUnregister(pointer: DevicePointer): void {
    const call = 'cuMemHostUnregister';
    this.state.requireContext(call);
    const index = this.registered.findIndex((range) => range.start === pointer);
    if (index < 0) throw cudaError(call, 'CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED');
    this.registered.splice(index, 1);
  }

  stagedCopyHtoD(
    dst: DevicePointer,
    src: ArrayBufferView,
    stream: DriverHandle,
    options: StagedCopyOptions,
  ): void {
    const call = 'stagedCopyHtoD';
    checkStagedCopyOptions(call, options);
    this.state.checkStream(stream, 'cuStreamSynchronize');
    const from = viewBytes(src);
    const to = this.state.deviceSideBytes(dst, viewByteLength(from), 'cuMemcpyHtoDAsync');
    this.staged(from, to, options);
  }

  stagedCopyDtoH(
    dst: ArrayBufferView,
    src: DevicePointer,
    stream: DriverHandle,
    options: StagedCopyOptions,
  ): void {
    const call = 'stagedCopyDtoH';
    checkStagedCopyOptions(call, options);
    this.state.checkStream(stream, 'cuStreamSynchronize');
    const to = viewBytes(dst);
    const from = this.state.deviceSideBytes(src, viewByteLength(to), 'cuMemcpyDtoHAsync');
    this.staged(from, to, options);
  }

  // Through one staging chunk per step, as the engines do: source -> chunk -> destination.
  private staged(from: Uint8Array, to: Uint8Array, options: StagedCopyOptions): void {
    const length = viewByteLength(from);
    const chunk = new Uint8Array(Math.min(options.chunkBytes, length));
    for (const slice of stagedCopySlices(length, options.chunkBytes, options.threads)) {
      for (let offset = slice.begin; offset < slice.end; offset += options.chunkBytes) {
        const size = Math.min(options.chunkBytes, slice.end - offset);
        chunk.set(from.subarray(offset, offset + size));
        to.set(chunk.subarray(0, size), offset);
      }
    }
  }
}
