// The CUDA Array Interface (version 3), with its fields in camelCase: how GPU arrays describe
// themselves to each other (Numba, CuPy, PyTorch use the snake_case original).
import {
  CudaStateError,
  checkAddress,
  checkBoolean,
  checkOptions,
  checkSize,
  describeValue,
  NotSupportedError,
  PointerAttribute,
} from '@cumem/core-types';
import { currentDriver, Stream } from '@cumem/memory';
import { allocationRanges, registerExportAt } from '@cumem/memory/internal';
import { DTYPE_ITEMSIZE, type DType, dtypeToTypestr, typestrToDType } from '../strided/dtype.js';
import { checkSignedInteger } from '../strided/layout-validation.js';
import { StridedLayout } from '../strided/strided-layout.js';
import {
  type ConsumerStreamOptions,
  checkConsumerStream,
  orderAfterProducer,
} from './exchange-stream-order.js';

const { allocationRange } = allocationRanges;

/** CUDA Array Interface v3 in camelCase. */
export interface CudaArrayInterface {
  /** Elements per axis. */
  readonly shape: readonly number[];
  /** NumPy type string, e.g. `'<f4'`. */
  readonly typestr: string;
  /** `[address of element (0, ..., 0), readonly]`. */
  readonly data: readonly [bigint | number, boolean];
  /** Strides in bytes, or null for C-contiguous. */
  readonly strides?: readonly number[] | null;
  /** Always 3. */
  readonly version: number;
  /**
   * The stream the producer's pending work is on, or absent/null (nothing pending): the
   * importer orders its consumer stream after it (an event, no CPU wait):
   * 1 (the legacy default stream), 2 (the per-thread default stream), a {@link Stream} of
   * @cumem/memory, or (only with `trustForeignStream`) another `CUstream` handle. Never 0.
   */
  readonly stream?: bigint | number | Stream | null;
  /** Masked arrays are refused (NotSupportedError), as Numba refuses them: absent or null only. */
  readonly mask?: null;
}

/** Options of {@link importInterface} (and `StridedMemoryView.from`). */
export interface ImportInterfaceOptions extends ConsumerStreamOptions {
  /**
   * Accept a `stream` that is a raw `CUstream` handle other than 1 or 2, as other libraries
   * (CuPy, Numba, PyTorch) export, and order the consumer stream after it. Default false: such a stream is a
   * TypeError.
   *
   * **Unsafe:** cumem cannot tell a live stream from a garbage or destroyed handle, and the
   * driver may crash the process on one. The caller must guarantee that the handle is a live
   * `CUstream` of the current context until the import returns: set this only for interfaces
   * from a producer you trust.
   */
  readonly trustForeignStream?: boolean;
}

// The protocol's special stream values (CUDA Array Interface v3): the legacy default stream
// and the per-thread default stream. The driver knows both; 0 is refused by the protocol.
const legacyDefaultStream = 1n;
const perThreadDefaultStream = 2n;

/** What {@link importInterface} returns. */
export interface ImportedInterface {
  readonly layout: StridedLayout;
  readonly dtype: DType;
  readonly readonly: boolean;
  readonly base: bigint;
  readonly deviceId: number;
  readonly isDeviceAccessible: boolean;
  /** Bytes the interface describes from `base`: no view of the import reaches further. */
  readonly capacity: number;
}

/** The interface of a view. */
export function exportInterface(
  layout: StridedLayout,
  dtype: DType,
  pointer: bigint,
  readonly: boolean,
): CudaArrayInterface {
  return Object.freeze({
    shape: layout.shape,
    typestr: dtypeToTypestr(dtype),
    data: Object.freeze([pointer, readonly] as const),
    strides: layout.isContiguousC ? null : layout.stridesInBytes,
    version: 3,
  });
}

/**
 * Reads `owner.cudaArrayInterface`; when it names a `stream`, orders `options.stream` (default:
 * the device's default stream; -1: none) after it on the GPU.
 * @throws TypeError when the object has no interface, a field has the wrong kind, or `stream`
 *   is a foreign handle without `trustForeignStream`; RangeError for another version, strides
 *   not a multiple of the itemsize, a zero stream, or elements outside the driver's allocation
 *   holding `data[0]`; CudaError when the driver does not know the pointer.
 */
export function importInterface(owner: unknown, options?: ImportInterfaceOptions): ImportedInterface {
  const cai =
    typeof owner === 'object' && owner !== null
      ? (owner as { cudaArrayInterface?: unknown }).cudaArrayInterface
      : undefined;
  if (typeof cai !== 'object' || cai === null) {
    throw new TypeError(
      `expected a StridedMemoryView, a TypedArray or an object with cudaArrayInterface, got ${describeValue(owner)}`,
    );
  }
  // Every field read once, here: a getter cannot answer one thing to a check and another to its use.
  const {
    version,
    typestr,
    shape: shapeField,
    data,
    strides: stridesField,
    stream: streamField,
    mask,
  } = cai as Record<string, unknown>;
  const { trustForeignStream = false } = checkOptions(options);
  const consumer = checkConsumerStream(options);
  if (version !== 3)
    throw new RangeError(`cudaArrayInterface.version must be 3, got ${describeValue(version)}`);
  if (mask !== undefined && mask !== null) {
    throw new NotSupportedError(
      'cudaArrayInterface.mask is set: masked arrays are not supported (as in Numba); pass the unmasked data',
    );
  }
  const dtype = typestrToDType(typestr);
  const itemsize = DTYPE_ITEMSIZE[dtype];
  if (!Array.isArray(shapeField)) throw new TypeError('cudaArrayInterface.shape must be an array');
  const shape = Array.from(shapeField, (extent: unknown, i) =>
    checkSize(extent, `cudaArrayInterface.shape[${i}]`),
  );
  if (!Array.isArray(data))
    throw new TypeError('cudaArrayInterface.data must be [pointer, readonly: boolean]');
  const entries = Array.from(data as unknown[]);
  const [address, readonly] = entries;
  if (entries.length !== 2 || typeof readonly !== 'boolean') {
    throw new TypeError('cudaArrayInterface.data must be [pointer, readonly: boolean]');
  }
  const pointer = checkAddress(address, 'cudaArrayInterface.data[0]');
  let strides: number[] | null = null;
  if (stridesField !== undefined && stridesField !== null) {
    if (!Array.isArray(stridesField))
      throw new TypeError('cudaArrayInterface.strides must be an array or null');
    const byteStrides = Array.from(stridesField as unknown[]);
    if (byteStrides.length !== shape.length)
      throw new RangeError('cudaArrayInterface.strides and shape differ in length');
    strides = byteStrides.map((stride, i) => {
      const bytes = checkSignedInteger(stride, `cudaArrayInterface.strides[${i}]`);
      if (bytes % itemsize !== 0)
        throw new RangeError(`stride ${bytes} bytes is not a multiple of the ${itemsize}-byte ${dtype}`);
      return bytes / itemsize;
    });
  }
  checkBoolean(trustForeignStream, 'trustForeignStream');
  const stream = checkInterfaceStream(streamField, trustForeignStream);
  // Negative strides reach before data[0]: put the layout's offset 0 at the lowest element.
  const probe = new StridedLayout(shape, strides, itemsize);
  const lowest = Math.min(0, probe.offsetBounds.min);
  const layout = new StridedLayout(shape, probe.strides, itemsize, { offset: -lowest });
  const base = pointer - BigInt(-lowest * itemsize);
  const volume = layout.volume;
  if (volume > 0 && pointer === 0n) {
    throw new RangeError(`cudaArrayInterface.data[0] is null for an array of ${volume} elements`);
  }
  const capacity = volume === 0 ? 0 : layout.requiredSizeInBytes();
  let deviceId = -1;
  if (volume > 0) {
    deviceId = currentDriver().pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal);
    checkInsideAllocation(pointer, base, capacity);
  }
  if (stream !== undefined) orderAfterProducer(stream, consumer, deviceId);
  return { layout, dtype, readonly, base, deviceId, isDeviceAccessible: true, capacity };
}

/** A CUDA Array Interface import's hold on the bytes it describes; `release()` may be called any number of times. */
export interface ImportHold {
  release(): void;
}

// A hold lives while a view of the import does (the views derived through view() share it):
// released by close(), or once the last of them is collected.
const collectedHolds = new FinalizationRegistry<() => void>((release) => release());

/**
 * Registers the bytes `imported` describes with @cumem/memory's export registry: a view reads
 * them by address, so a resize must not shrink or move a cumem VMM allocation under them while
 * the hold lives (other memory cannot be resized: nothing is registered). Undefined for an
 * import of no bytes.
 */
export function holdImportedRange(imported: ImportedInterface): ImportHold | undefined {
  if (imported.capacity === 0) return undefined;
  const end = imported.base + BigInt(imported.capacity);
  const release = registerExportAt(
    currentDriver(),
    imported.base,
    end,
    'a CUDA Array Interface import (StridedMemoryView.from)',
  );
  const hold: ImportHold = {
    release: () => {
      collectedHolds.unregister(hold);
      release();
    },
  };
  collectedHolds.register(hold, release, hold);
  return hold;
}

/** `stream` as the handle to synchronize, a Stream, or undefined for none. */
function checkInterfaceStream(stream: unknown, trustForeignStream: boolean): bigint | Stream | undefined {
  if (stream === undefined || stream === null) return undefined;
  if (Stream.isStream(stream)) {
    if (stream.isClosed) throw CudaStateError.closed('Stream');
    return stream;
  }
  const handle = checkAddress(stream, 'cudaArrayInterface.stream');
  if (handle === 0n)
    throw new RangeError('cudaArrayInterface.stream must not be 0 (ambiguous in the protocol)');
  if (handle === legacyDefaultStream || handle === perThreadDefaultStream || trustForeignStream)
    return handle;
  throw new TypeError(
    `cudaArrayInterface.stream 0x${handle.toString(16)} is a foreign CUstream cumem cannot vouch for: pass a Stream of @cumem/memory, 1 or 2, or opt in with { trustForeignStream: true } (unsafe)`,
  );
}

// The driver's allocation range holding `pointer` (data[0]) must hold all `bytes` the array
// spans from `start`: an interface claiming more than its producer allocated would let copies
// run past it.
function checkInsideAllocation(pointer: bigint, start: bigint, bytes: number): void {
  const range = allocationRange(currentDriver(), pointer);
  if (range === undefined) {
    throw new TypeError(
      `cudaArrayInterface.data 0x${pointer.toString(16)} is memory the driver does not know (pageable host memory?): it cannot be checked`,
    );
  }
  if (start < range.start || start + BigInt(bytes) > range.end) {
    throw new RangeError(
      `cudaArrayInterface spans ${bytes} bytes from 0x${start.toString(16)}, past the end of its ${range.end - range.start}-byte allocation at 0x${range.start.toString(16)}`,
    );
  }
}
