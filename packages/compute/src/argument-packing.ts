// Kernel arguments packed into one parameter buffer per launch: each argument's bytes at its
// offset (the driver's, from cuFuncGetParamInfo, else the C ABI's natural alignment), checked
// against the sizes the driver reports. Buffers are checked open and reachable from the launch's
// device, and collected so the launch can hold their memory until the kernel has run.
import { CudaStateError, describeValue, type KernelParameterInfo } from '@cumem/core-types';
import { Buffer, bufferReachableOn, ownerMemoryBuffer, type Stream } from '@cumem/memory';
import { StridedMemoryView } from '@cumem/utils';
import { isKernelScalar, type KernelScalar, scalarSize } from './scalar-arguments.js';

/**
 * A kernel argument: device-accessible memory (a `Buffer`, a `StridedMemoryView`, or an object
 * holding a Buffer under `ownerMemoryBuffer` with an `address`, such as interop-arrow's
 * `CudaBuffer`) passes its address; a wrapped scalar its value; a bigint a 64-bit integer.
 */
export type KernelArgument = Buffer | StridedMemoryView | KernelScalar | bigint | { readonly address: bigint };

/** One launch's packed arguments. */
export interface PackedArguments {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
  /** Buffers whose memory the kernel receives. */
  readonly buffers: Buffer[];
}

interface Resolved {
  readonly size: number;
  readonly label: string;
  write(view: DataView, offset: number): void;
}

function pointer(address: bigint, label: string): Resolved {
  return { size: 8, label, write: (view, offset) => view.setBigUint64(offset, address, true) };
}

function memoryArgument(buffer: Buffer, address: bigint, what: string, index: number, stream: Stream, buffers: Buffer[]): Resolved {
  if (buffer.isClosed) throw CudaStateError.closed(`${what} passed as argument ${index}`);
  if (!buffer.isDeviceAccessible) {
    throw new TypeError(`argument ${index} is a ${what} of memory the device cannot access (pageable host memory)`);
  }
  if (!bufferReachableOn(stream, buffer, true)) {
    throw new CudaStateError(
      `argument ${index} is a ${what} on device ${buffer.deviceId}, which device ${stream.device.ordinal} cannot reach: grant it access first`,
    );
  }
  buffers.push(buffer);
  return pointer(address, `${what}, 8 bytes`);
}

function resolve(value: unknown, index: number, stream: Stream, buffers: Buffer[]): Resolved {
  if (isKernelScalar(value)) {
    const size = scalarSize[value.kind];
    const label = `${value.kind}, ${size} bytes`;
    const v = value.value;
    switch (value.kind) {
      case 'int32':
        return { size, label, write: (d, o) => d.setInt32(o, v as number, true) };
      case 'uint32':
        return { size, label, write: (d, o) => d.setUint32(o, v as number, true) };
      case 'int64':
        return { size, label, write: (d, o) => d.setBigInt64(o, v as bigint, true) };
      case 'uint64':
        return { size, label, write: (d, o) => d.setBigUint64(o, v as bigint, true) };
      case 'float32':
        return { size, label, write: (d, o) => d.setFloat32(o, v as number, true) };
      case 'float64':
        return { size, label, write: (d, o) => d.setFloat64(o, v as number, true) };
      case 'bool':
        return { size, label, write: (d, o) => d.setUint8(o, v === true ? 1 : 0) };
    }
  }
  if (typeof value === 'bigint') {
    if (value < -(2n ** 63n) || value >= 2n ** 64n) {
      throw new RangeError(`argument ${index} (bigint) does not fit in 64 bits: ${value}n`);
    }
    return pointer(BigInt.asUintN(64, value), 'bigint, 8 bytes');
  }
  if (value instanceof Buffer) return memoryArgument(value, value.handle, 'Buffer', index, stream, buffers);
  if (StridedMemoryView.isInstance(value)) {
    const owner = value.exportingObject;
    const held = owner instanceof Buffer ? owner : heldBuffer(owner);
    if (!value.isDeviceAccessible) {
      throw new TypeError(`argument ${index} is a StridedMemoryView of memory the device cannot access`);
    }
    if (held !== null) return memoryArgument(held, value.ptr, 'StridedMemoryView', index, stream, buffers);
    return pointer(value.ptr, 'StridedMemoryView, 8 bytes');
  }
  const held = heldBuffer(value);
  if (held !== null) {
    const address = (value as { address?: unknown }).address;
    if (typeof address !== 'bigint') throw new TypeError(`argument ${index} holds a Buffer but has no bigint address`);
    if ((value as { isClosed?: unknown }).isClosed === true) throw CudaStateError.closed(`buffer passed as argument ${index}`);
    return memoryArgument(held, address, 'CudaBuffer', index, stream, buffers);
  }
  if (typeof value === 'number') {
    const hint = Number.isInteger(value) ? 'int32(x), uint32(x), int64(x) or uint64(x)' : 'float32(x) or float64(x)';
    throw new TypeError(`argument ${index} is a plain number (${value}): its C type is unknown, wrap it in ${hint}`);
  }
  if (typeof value === 'boolean') throw new TypeError(`argument ${index} is a plain boolean: wrap it in bool(x)`);
  throw new TypeError(
    `argument ${index} must be a Buffer, StridedMemoryView, CudaBuffer, bigint or a scalar wrapper, got ${describeValue(value)}`,
  );
}

function heldBuffer(value: unknown): Buffer | null {
  if (typeof value !== 'object' || value === null) return null;
  const held = (value as { [ownerMemoryBuffer]?: unknown })[ownerMemoryBuffer];
  return held instanceof Buffer ? held : null;
}

/**
 * Packs `args` for `kernelName`, whose parameters are `parameters` when the driver reports them.
 * @throws RangeError for a wrong number of arguments or an argument whose size is not its
 *   parameter's; TypeError for an argument of no kernel type (a plain number names the wrapper
 *   to use); CudaStateError for a closed or unreachable buffer. All before any driver call.
 */
export function packArguments(
  kernelName: string,
  parameters: readonly KernelParameterInfo[] | null,
  args: readonly unknown[],
  stream: Stream,
): PackedArguments {
  if (parameters !== null && args.length !== parameters.length) {
    throw new RangeError(`${kernelName} takes ${parameters.length} argument(s), got ${args.length}`);
  }
  const buffers: Buffer[] = [];
  const resolved = args.map((value, index) => resolve(value, index, stream, buffers));
  const offsets = new Uint32Array(resolved.length);
  let end = 0;
  resolved.forEach((argument, index) => {
    let offset: number;
    if (parameters !== null) {
      const parameter = parameters[index] as KernelParameterInfo;
      if (parameter.size !== argument.size) {
        throw new RangeError(
          `argument ${index} (${argument.label}) does not match ${kernelName}'s parameter ${index} of ${parameter.size} bytes`,
        );
      }
      offset = parameter.offset;
    } else {
      offset = Math.ceil(end / argument.size) * argument.size;
    }
    offsets[index] = offset;
    end = Math.max(end, offset + argument.size);
  });
  const bytes = new Uint8Array(Math.max(end, 8));
  const view = new DataView(bytes.buffer);
  resolved.forEach((argument, index) => argument.write(view, offsets[index] as number));
  return { bytes, offsets, buffers };
}
