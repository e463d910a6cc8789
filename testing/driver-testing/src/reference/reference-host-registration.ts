import {
  checkStagedCopyOptions,
  type DevicePointer,
  type DriverHandle,
  type StagedCopyOptions,
} from '@cumem/core-types';
import { stagedCopySlices } from '@cumem/driver-kit';
import { cudaError } from './cuda-errors.js';
import { ReferenceManaged } from './reference-managed.js';

/** `cuMemHostRegister` flags cuda.h defines: PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY. */
const knownRegisterFlags = 0xf;

/** One registered range of JS memory: its fake address and length. */
interface RegisteredRange {
  readonly start: bigint;
  readonly size: number;
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
    this.state.requireContext(call);
    const start = this.addressOf(view);
    const size = view.byteLength;
    if (!Number.isInteger(flags) || (flags & ~knownRegisterFlags) !== 0 || size === 0) {
      throw cudaError(call, 'CUDA_ERROR_INVALID_VALUE');
    }
    const end = start + BigInt(size);
    // cuda.h: a range overlapping one already registered is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
    if (this.registered.some((range) => start < range.start + BigInt(range.size) && range.start < end)) {
      throw cudaError(call, 'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED');
    }
    this.registered.push({ start, size });
    return start;
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
    const to = this.state.deviceSideBytes(dst, src.byteLength, 'cuMemcpyHtoDAsync');
    const from = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
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
    const from = this.state.deviceSideBytes(src, dst.byteLength, 'cuMemcpyDtoHAsync');
    const to = new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength);
    this.staged(from, to, options);
  }

  // Through one staging chunk per step, as the engines do: source -> chunk -> destination.
  private staged(from: Uint8Array, to: Uint8Array, options: StagedCopyOptions): void {
    const chunk = new Uint8Array(Math.min(options.chunkBytes, from.byteLength));
    for (const slice of stagedCopySlices(from.byteLength, options.chunkBytes, options.threads)) {
      for (let offset = slice.begin; offset < slice.end; offset += options.chunkBytes) {
        const size = Math.min(options.chunkBytes, slice.end - offset);
        chunk.set(from.subarray(offset, offset + size));
        to.set(chunk.subarray(0, size), offset);
      }
    }
  }
}
