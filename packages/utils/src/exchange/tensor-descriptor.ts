// The wire format of a typed, shaped view shared with another process (Node or Python): the
// buffer's pool IPC descriptor plus what a consumer needs to build an array over it without
// copying. Plain JSON, so it travels on a pipe, `postMessage` or a socket; the pool's file
// descriptor travels beside it (see `mr.getAllocationHandle()`).
import { checkOptions, describeValue, IPC_HANDLE_SIZE } from '@cumem/core-types';
import {
  Buffer,
  type IpcBufferDescriptor,
  type MemoryResource,
  type StreamOrderOptions,
} from '@cumem/memory';
import { bufferState } from '@cumem/memory/internal';
import { checkDType, DTYPE_ITEMSIZE, type DType, dtypeToTypestr } from '../strided/dtype.js';
import { StridedLayout } from '../strided/strided-layout.js';

/** The `format` tag of {@link TensorIpcDescriptor}, version 1. */
export const TENSOR_DESCRIPTOR_FORMAT = 'cumem.tensor/1';

/**
 * What another process needs to open a {@link StridedMemoryView} of a pool buffer as an array
 * (CuPy, PyTorch, or `StridedMemoryView.fromIpcDescriptor`). Every field is JSON.
 */
export interface TensorIpcDescriptor {
  /** Always `'cumem.tensor/1'`. */
  readonly format: typeof TENSOR_DESCRIPTOR_FORMAT;
  /** The buffer's pool descriptor (`buffer.ipcDescriptor`: 64 bytes of `cuMemPoolExportPointer` in base64, size, uuid). */
  readonly buffer: IpcBufferDescriptor;
  /** `'device'` for a `DeviceMemoryResource` pool, `'pinned'` for a `PinnedMemoryResource` pool: which resource imports it. */
  readonly memory: 'device' | 'pinned';
  /** Device ordinal of the memory (-1 for pinned memory). */
  readonly deviceId: number;
  /** Element type, as cumem names it. */
  readonly dtype: DType;
  /** The same type as a CUDA Array Interface / NumPy `typestr` (`'<f4'`; bfloat16 is `'<V2'`). */
  readonly typestr: string;
  /** Bytes per element. */
  readonly itemsize: number;
  /** Elements per axis. */
  readonly shape: readonly number[];
  /** Elements (not bytes) between neighbours along each axis. */
  readonly strides: readonly number[];
  /** Elements from the buffer's first byte to index (0, ..., 0). */
  readonly offset: number;
  /**
   * An interprocess event (`event.ipcHandle`, 64 bytes in base64) recorded after the
   * producer's last write, or null: then the producer finished its writes before sending.
   */
  readonly event: string | null;
}

/** @internal Builds the descriptor of a view over `buffer` with `layout` and `dtype`. */
export function makeTensorDescriptor(
  buffer: Buffer,
  layout: StridedLayout,
  dtype: DType,
  event: Uint8Array | null,
): TensorIpcDescriptor {
  if (event !== null && (!(event instanceof Uint8Array) || event.byteLength !== IPC_HANDLE_SIZE)) {
    throw new RangeError(`event must be the ${IPC_HANDLE_SIZE} bytes of event.ipcHandle`);
  }
  return Object.freeze({
    format: TENSOR_DESCRIPTOR_FORMAT,
    buffer: bufferState(buffer).ipcDescriptor(),
    memory: bufferState(buffer).isHostAccessible ? 'pinned' : 'device',
    deviceId: bufferState(buffer).deviceId,
    dtype,
    typestr: dtypeToTypestr(dtype),
    itemsize: layout.itemsize,
    shape: layout.shape,
    strides: layout.strides,
    offset: layout.offset,
    event: event === null ? null : globalThis.Buffer.from(event).toString('base64'),
  });
}

const isIntegerList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((item) => Number.isSafeInteger(item));

/**
 * @internal Checks the shape of a received descriptor (the layout itself is checked when it is built).
 * @throws TypeError for a value that is not a version-1 tensor descriptor.
 */
export function readTensorDescriptor(value: unknown): TensorIpcDescriptor {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`descriptor must be a TensorIpcDescriptor, got ${describeValue(value)}`);
  }
  const descriptor = value as Partial<TensorIpcDescriptor>;
  if (descriptor.format !== TENSOR_DESCRIPTOR_FORMAT) {
    throw new TypeError(
      `descriptor.format must be '${TENSOR_DESCRIPTOR_FORMAT}', got ${describeValue(descriptor.format)}`,
    );
  }
  const dtype = checkDType(descriptor.dtype, 'descriptor.dtype');
  if (descriptor.itemsize !== DTYPE_ITEMSIZE[dtype]) {
    throw new TypeError(
      `descriptor.itemsize ${describeValue(descriptor.itemsize)} does not match dtype ${dtype}`,
    );
  }
  if (!isIntegerList(descriptor.shape) || !isIntegerList(descriptor.strides)) {
    throw new TypeError('descriptor.shape and descriptor.strides must be arrays of integers');
  }
  if (!Number.isSafeInteger(descriptor.offset)) {
    throw new TypeError(`descriptor.offset must be an integer, got ${describeValue(descriptor.offset)}`);
  }
  if (typeof descriptor.buffer !== 'object' || descriptor.buffer === null) {
    throw new TypeError(
      `descriptor.buffer must be an IpcBufferDescriptor, got ${describeValue(descriptor.buffer)}`,
    );
  }
  return descriptor as TensorIpcDescriptor;
}

/** Options of `StridedMemoryView.toIpcDescriptor`. */
export interface TensorIpcDescriptorOptions {
  /** An interprocess event recorded after the producer's writes; the consumer waits on it. Default: none. */
  readonly event?: { readonly ipcHandle: Uint8Array } | null;
}

/** @internal The event handle bytes of the options, or null. */
export function eventHandleOption(options: TensorIpcDescriptorOptions | undefined): Uint8Array | null {
  const { event = null } = checkOptions(options, 'options');
  if (event === null) return null;
  if (typeof event !== 'object' || !('ipcHandle' in event)) {
    throw new TypeError(`event must be an interprocess Event, got ${describeValue(event)}`);
  }
  return event.ipcHandle;
}

/**
 * Opens the buffer of `descriptor` through `mr` and makes the view with `view`; the buffer is
 * closed again when that throws (StridedMemoryView.fromIpcDescriptor).
 */
export function openTensorDescriptor<V>(
  mr: MemoryResource,
  descriptor: TensorIpcDescriptor,
  options: StreamOrderOptions | undefined,
  view: (buffer: Buffer, layout: StridedLayout, dtype: DType) => V,
): V {
  const checked = readTensorDescriptor(descriptor);
  const layout = new StridedLayout(checked.shape, checked.strides, checked.itemsize, {
    offset: checked.offset,
  });
  const buffer = Buffer.fromIpcDescriptor(mr, checked.buffer, options);
  try {
    return view(buffer, layout, checked.dtype);
  } catch (error) {
    bufferState(buffer).close();
    throw error;
  }
}
