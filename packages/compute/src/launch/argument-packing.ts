// Kernel arguments packed into one parameter buffer per launch: each argument's bytes at its
// offset (the driver's, from cuFuncGetParamInfo, else the C ABI's natural alignment), checked
// against the sizes the driver reports. Buffers are checked open and reachable from the launch's
// device. This is the launch hot path: one pass, no closures or arrays per argument, and the
// buffer of a kernel whose layout the driver reports is reused (the driver copies the
// parameters when cuLaunchKernelEx returns).
import { CudaStateError, describeValue, type KernelParameterInfo } from '@cumem/core-types';
import { type Buffer, bufferBrand, ownerMemoryBuffer, type Stream } from '@cumem/memory';
import { bufferState, noteKernelUse, reachability, viewMemory } from '@cumem/memory/internal';
import { StridedMemoryView } from '@cumem/utils';
import type { ArgumentLayout } from '../kernel/argument-layout.js';
import { isKernelScalar, type KernelScalar, scalarSize } from './scalar-arguments.js';

const { bufferReachableOn } = reachability;

/**
 * A kernel argument: device-accessible memory (a `Buffer`, a `StridedMemoryView`, or an object
 * holding a Buffer under `ownerMemoryBuffer` with an `address`, such as interop-arrow's
 * `CudaBuffer`) passes its address; a wrapped scalar its value; a bigint a 64-bit integer.
 */
export type KernelArgument =
  | Buffer
  | StridedMemoryView
  | KernelScalar
  | bigint
  | { readonly address: bigint };

/** A buffer's state, as cumem's packages read a buffer (never through its getters). */
type BufferState = ReturnType<typeof bufferState>;

/** The state of the Buffer `value` holds under `ownerMemoryBuffer` (a CudaBuffer's), or null. */
function heldBufferState(value: unknown): BufferState | null {
  if (typeof value !== 'object' || value === null) return null;
  const held = (value as { [ownerMemoryBuffer]?: unknown })[ownerMemoryBuffer];
  return bufferBrand.has(held) ? bufferState(held) : null;
}

function mismatch(
  kernelName: string,
  index: number,
  label: string,
  size: number,
  expected: number,
): RangeError {
  return new RangeError(
    `argument ${index} (${label}, ${size} bytes) does not match ${kernelName}'s parameter ${index} of ${expected} bytes`,
  );
}

/**
 * The memory an argument passes, or undefined for no memory argument: writes its address at
 * `offset` of `view` (when `view` is given) after checking it is usable, and notes its buffer's
 * use by a kernel (before the launch: a launch that fails then leaves the buffer's free ordered
 * after all work, which is safe). One pass, no objects made: this runs per argument per launch.
 */
function writeMemory(
  view: DataView | null,
  offset: number,
  expected: number,
  value: unknown,
  index: number,
  stream: Stream,
  kernelName: string,
): boolean {
  // The state of the Buffer whose memory the argument passes (null for a view of memory no
  // Buffer of cumem holds), read once for the checks and the kernel-use record below.
  let state: BufferState | null;
  let address: bigint;
  let what: string;
  if (bufferBrand.has(value)) {
    state = bufferState(value);
    address = state.pointer;
    what = 'Buffer';
  } else if (StridedMemoryView.isInstance(value)) {
    if (!value.isDeviceAccessible) {
      throw new TypeError(`argument ${index} is a StridedMemoryView of memory the device cannot access`);
    }
    // A view of a Buffer records it (also a DLPack import, whose exportingObject is its producer).
    const owner = value.exportingObject;
    const buffer = viewMemory.of(value) ?? (bufferBrand.has(owner) ? owner : null);
    state = buffer !== null ? bufferState(buffer) : heldBufferState(owner);
    // The view's bytes against its Buffer as it is now: a kernel must not get a view that a
    // modifyAllocation shrink has left reaching past the end.
    viewMemory.checkLive(value, 'launch');
    address = value.ptr;
    what = 'StridedMemoryView';
  } else {
    state = heldBufferState(value);
    if (state === null) return false;
    const claimed = (value as { address?: unknown }).address;
    if (typeof claimed !== 'bigint')
      throw new TypeError(`argument ${index} holds a Buffer but has no bigint address`);
    if ((value as { isClosed?: unknown }).isClosed === true)
      throw CudaStateError.closed(`buffer passed as argument ${index}`);
    // The address is the holder's word: it must lie in the Buffer it holds (whose memory the
    // checks below and the kernel-use record are about), not anywhere it likes.
    const { pointer: start, size } = state;
    if (claimed < start || claimed > start + BigInt(size)) {
      throw new RangeError(
        `argument ${index} claims address 0x${claimed.toString(16)}, outside the Buffer it holds (0x${start.toString(16)}, ${size} bytes)`,
      );
    }
    address = claimed;
    what = 'CudaBuffer';
  }
  if (state !== null) {
    if (state.isClosed) throw CudaStateError.closed(`${what} passed as argument ${index}`);
    if (!state.isDeviceAccessible) {
      throw new TypeError(
        `argument ${index} is a ${what} of memory the device cannot access (pageable host memory)`,
      );
    }
    if (!bufferReachableOn(stream, state.buffer, true)) {
      throw new CudaStateError(
        `argument ${index} is a ${what} on device ${state.deviceId}, which device ${stream.device.ordinal} cannot reach: grant it access first`,
      );
    }
  }
  if (expected >= 0 && expected !== 8) throw mismatch(kernelName, index, 'memory address', 8, expected);
  if (view === null) return true;
  view.setBigUint64(offset, address, true);
  if (state !== null) noteKernelUse(state.buffer);
  return true;
}

function refuse(value: unknown, index: number): never {
  if (typeof value === 'number') {
    const hint = Number.isInteger(value)
      ? 'int32(x), uint32(x), int64(x) or uint64(x)'
      : 'float32(x) or float64(x)';
    throw new TypeError(
      `argument ${index} is a plain number (${value}): its C type is unknown, wrap it in ${hint}`,
    );
  }
  if (typeof value === 'boolean')
    throw new TypeError(`argument ${index} is a plain boolean: wrap it in bool(x)`);
  throw new TypeError(
    `argument ${index} must be a Buffer, StridedMemoryView, CudaBuffer, bigint or a scalar wrapper, got ${describeValue(value)}`,
  );
}

function sizeOf(value: unknown, index: number, stream: Stream): number {
  if (isKernelScalar(value)) return scalarSize(value.kind);
  if (typeof value === 'bigint') return 8;
  if (!writeMemory(null, 0, -1, value, index, stream, '')) refuse(value, index);
  return 8;
}

/**
 * Writes argument `index` at `offset` of `view`; `expected` is the parameter's size when the
 * driver reports it (else -1). A buffer it passes is noted as used by a kernel.
 */
function writeArgument(
  view: DataView,
  offset: number,
  expected: number,
  value: unknown,
  index: number,
  stream: Stream,
  kernelName: string,
): void {
  if (isKernelScalar(value)) {
    const size = scalarSize(value.kind);
    if (expected >= 0 && size !== expected) throw mismatch(kernelName, index, value.kind, size, expected);
    const v = value.value;
    switch (value.kind) {
      case 'int8':
        view.setInt8(offset, v as number);
        break;
      case 'uint8':
        view.setUint8(offset, v as number);
        break;
      case 'int16':
        view.setInt16(offset, v as number, true);
        break;
      case 'uint16':
        view.setUint16(offset, v as number, true);
        break;
      case 'int32':
        view.setInt32(offset, v as number, true);
        break;
      case 'uint32':
        view.setUint32(offset, v as number, true);
        break;
      case 'int64':
        view.setBigInt64(offset, v as bigint, true);
        break;
      case 'uint64':
        view.setBigUint64(offset, v as bigint, true);
        break;
      case 'float32':
        view.setFloat32(offset, v as number, true);
        break;
      case 'float64':
        view.setFloat64(offset, v as number, true);
        break;
      case 'bool':
        view.setUint8(offset, v === true ? 1 : 0);
        break;
    }
    return;
  }
  if (typeof value === 'bigint') {
    if (expected >= 0 && expected !== 8) throw mismatch(kernelName, index, 'bigint', 8, expected);
    if (value < -(2n ** 63n) || value >= 2n ** 64n) {
      throw new RangeError(`argument ${index} (bigint) does not fit in 64 bits: ${value}n`);
    }
    view.setBigUint64(offset, BigInt.asUintN(64, value), true);
    return;
  }
  if (!writeMemory(view, offset, expected, value, index, stream, kernelName)) refuse(value, index);
}

/** One launch's packed arguments. */
export interface PackedArguments {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
}

/**
 * Packs `args` for `kernelName` into `layout` (reused) or, when the driver does not report the
 * layout, a new buffer at the natural alignments (the layout is returned as it is when reused);
 * the buffers passed are noted as used by a kernel.
 * @throws RangeError for a wrong number of arguments or an argument whose size is not its
 *   parameter's; TypeError for an argument of no kernel type (a plain number names the wrapper
 *   to use); CudaStateError for a closed or unreachable buffer. All before any driver call.
 */
export function packArguments(
  kernelName: string,
  layout: ArgumentLayout | null,
  args: readonly unknown[],
  stream: Stream,
): PackedArguments {
  if (layout !== null) {
    const { parameters, view } = layout;
    if (args.length !== parameters.length) {
      throw new RangeError(`${kernelName} takes ${parameters.length} argument(s), got ${args.length}`);
    }
    for (let index = 0; index < args.length; index++) {
      const parameter = parameters[index] as KernelParameterInfo;
      writeArgument(view, parameter.offset, parameter.size, args[index], index, stream, kernelName);
    }
    return layout;
  }
  const offsets = new Uint32Array(args.length);
  let end = 0;
  for (let index = 0; index < args.length; index++) {
    const size = sizeOf(args[index], index, stream);
    offsets[index] = Math.ceil(end / size) * size;
    end = (offsets[index] as number) + size;
  }
  const bytes = new Uint8Array(Math.max(end, 8));
  const view = new DataView(bytes.buffer);
  for (let index = 0; index < args.length; index++) {
    writeArgument(view, offsets[index] as number, -1, args[index], index, stream, kernelName);
  }
  return { bytes, offsets };
}
