import { CudaStateError, describeValue, guardMembers } from '@cumem/core-types';
import type {
  Buffer,
  DLPackCapsule,
  MemoryResource,
  StreamOrderOptions,
  ToDLPackOptions,
} from '@cumem/memory';
import { bufferBrand, ObjectBrand } from '@cumem/memory';
import { bufferState, checkLiveExtent, viewMemory } from '@cumem/memory/internal';
import { type CopySide, pointerSide } from '../batch/copy-execute.js';
import { refuseLookalike } from '../brand-guard.js';
import {
  type CudaArrayInterface,
  exportInterface,
  holdImportedRange,
  type ImportInterfaceOptions,
  importInterface,
} from '../exchange/cuda-array-interface.js';
import {
  closeImportedStruct,
  type FromDLPackOptions,
  importDLPack,
  producerDLPack,
} from '../exchange/dlpack-import.js';
import { exportView } from '../exchange/dlpack-view-export.js';
import {
  eventHandleOption,
  makeTensorDescriptor,
  openTensorDescriptor,
  type TensorIpcDescriptor,
  type TensorIpcDescriptorOptions,
} from '../exchange/tensor-descriptor.js';
import { checkDType, type DType, defaultDTypeFor } from './dtype.js';
import { checkView, type StridedCopyOptions, type StridedCopyReport, stridedCopy } from './strided-copy.js';
import { StridedLayout } from './strided-layout.js';
import type { FromBufferOptions, FromHostOptions, ViewState } from './strided-view-options.js';
import {
  bufferViewState,
  checkViewState,
  hostViewState,
  orderedBufferViewState,
} from './strided-view-state.js';

const viewMarker = Symbol.for('cumem.utils.StridedMemoryView');
let isViewObject: (value: object) => boolean;
// The brand of StridedMemoryView (memory's ObjectBrand over the private #state).
const viewBrand = new ObjectBrand<StridedMemoryView>('StridedMemoryView of @cumem/utils', (value) =>
  isViewObject(value),
);

const stateToken = Symbol('StridedMemoryView');

/**
 * A typed, strided view of device, pinned, managed or JS host memory: cuda.core's
 * `StridedMemoryView`. Keeps its exporting object alive. Copies between views of any layouts
 * ({@link copyFrom}, {@link copyTo}).
 */
export class StridedMemoryView {
  readonly [viewMarker] = true;
  /** Shape, strides (elements), itemsize and offset. */
  readonly layout: StridedLayout;
  /** Element type. */
  readonly dtype: DType;
  /** True when writes through this view are refused. */
  readonly readonly: boolean;
  /** Device ordinal of the memory; -1 for host memory. */
  readonly deviceId: number;
  /** True when a GPU can address the memory directly (device, pinned or managed memory). */
  readonly isDeviceAccessible: boolean;
  /**
   * The object the memory came from: the Buffer, the TypedArray, the `cudaArrayInterface` or
   * `toDLPack` producer given to {@link from}, or the capsule or pointer given to
   * {@link fromDLPack} (as cuda.core's `exporting_obj`).
   */
  readonly exportingObject: unknown;
  readonly #state: ViewState;

  /**
   * Not for use: get a view from {@link StridedMemoryView.fromBuffer},
   * {@link StridedMemoryView.fromHost} or {@link StridedMemoryView.from}. Called directly, it
   * throws a TypeError naming those.
   */
  private constructor(token: symbol, state: ViewState) {
    if (token !== stateToken) {
      throw new TypeError(
        'StridedMemoryView has no public constructor: use StridedMemoryView.fromBuffer / fromHost / from',
      );
    }
    checkViewState(state);
    this.#state = state;
    this.layout = state.layout;
    this.dtype = state.dtype;
    this.readonly = state.readonly;
    this.deviceId = state.deviceId;
    this.isDeviceAccessible = state.isDeviceAccessible;
    this.exportingObject = state.exportingObject;
    // For cumem's own packages (compute's launch), also where exportingObject is not the Buffer.
    if (state.buffer !== undefined) viewMemory.record(this, state.buffer, (member) => this.checkLive(member));
    Object.freeze(this);
  }

  /**
   * A view of a Buffer of @cumem/memory with `layout` (offset and strides in elements). The view
   * keeps `buffer` alive (as `exportingObject`); once the buffer is closed, the view refuses
   * work with CudaStateError.
   * @throws TypeError for a non-Buffer, non-layout or dtype whose size differs from the layout's
   *   itemsize; RangeError when the layout needs more bytes than the buffer has;
   *   CudaStateError for a closed buffer.
   */
  static fromBuffer(buffer: Buffer, layout: StridedLayout, options?: FromBufferOptions): StridedMemoryView {
    return new StridedMemoryView(stateToken, bufferViewState(buffer, layout, options));
  }

  /**
   * A view of a JS TypedArray (host memory, `deviceId` -1); dtype from the array kind
   * (Float32Array -> 'float32', ...). `ptr` is `currentDriver().addressOf(array)`. The view
   * keeps `array` alive (as `exportingObject`), and a non-blocking copy keeps it referenced on
   * its stream until the copy is done.
   * @throws TypeError for a DataView or non-TypedArray; RangeError when shape/strides reach past the array.
   */
  static fromHost(array: ArrayBufferView, options?: FromHostOptions): StridedMemoryView {
    return new StridedMemoryView(stateToken, hostViewState(array, options));
  }

  /**
   * A view of another library's array, as cuda.core: a Buffer of @cumem/memory (all its bytes as
   * uint8, as {@link fromBuffer}), else `value.toDLPack({ stream })` (see {@link fromDLPack}),
   * else `value.cudaArrayInterface` (v3, camelCase: CudaBuffer and views have one), else a
   * TypedArray (as {@link fromHost}), or a view (returned as is). The producer's pending work is
   * ordered before `options.stream` on the GPU — the consumer stream waits on an event recorded
   * on the producer's stream; the CPU never waits (default consumer: the device's default
   * stream; -1: none). A raw `stream` handle other than 1 or 2 needs `trustForeignStream`.
   * Elements must lie inside the driver's allocation; the view keeps `value` alive, and its
   * {@link view}s stay within the bytes the interface described.
   *
   * **Unsafe** for a `cudaArrayInterface` object: `data[0]` is a raw address. cumem checks the
   * elements only against the allocation the driver knows there, and cannot check who owns that
   * memory or how long it stays allocated. The caller must guarantee that `value` keeps the
   * memory allocated while it is reachable, and writable unless the interface says read-only.
   * @throws TypeError / RangeError for a malformed interface or struct, or a Proxy of a Buffer
   *   or view, or an object inheriting from one; NotSupportedError for an interface with a `mask`.
   */
  static from(value: unknown, options?: ImportInterfaceOptions): StridedMemoryView {
    if (StridedMemoryView.isInstance(value)) return value;
    if (ArrayBuffer.isView(value)) return StridedMemoryView.fromHost(value);
    // A Buffer is viewed directly (all its bytes, uint8), its producer ordered on the GPU.
    if (bufferBrand.has(value))
      return new StridedMemoryView(stateToken, orderedBufferViewState(value as Buffer, options));
    refuseLookalike(value, 'value', [StridedMemoryView]);
    const capsule = producerDLPack(value, options);
    if (capsule !== undefined) return StridedMemoryView.#fromStruct(capsule, { stream: -1 }, value);
    const imported = importInterface(value, options);
    const importHold = holdImportedRange(imported);
    try {
      return new StridedMemoryView(stateToken, {
        ...imported,
        exportingObject: value,
        hostBytes: undefined,
        buffer: undefined,
        importHold,
      });
    } catch (error) {
      importHold?.release();
      throw error;
    }
  }

  /**
   * Takes ownership of a DLPack struct made by native code (a `DLManagedTensorVersioned`
   * pointer, a legacy one with `versioned: false`, or a {@link DLPackCapsule}): maps its
   * device, dtype, shape, strides, byte offset and read-only flag, checks the memory against
   * the driver, and calls the producer's deleter exactly once, at {@link close} or when the
   * view (and every view derived from it) is collected. On any error ownership stays with the
   * caller. A struct names no stream: the producer orders its work before handing it over.
   * `exportingObject` is `source` (as cuda.core's `exporting_obj`, the producer's object), never
   * the imported memory as a Buffer: a read-only import cannot be written through it.
   *
   * **Unsafe** for a raw pointer: cumem reads it safely but cannot know that its deleter is a
   * function, or that the producer keeps the memory allocated until then.
   * @throws see `importDLPack` (TypeError, RangeError, NotSupportedError, CudaStateError).
   */
  static fromDLPack(
    source: DLPackCapsule | bigint | unknown,
    options?: FromDLPackOptions,
  ): StridedMemoryView {
    return StridedMemoryView.#fromStruct(source, options, source);
  }

  // A view of a DLPack struct, which shows `producer` as its exporting object.
  static #fromStruct(
    source: unknown,
    options: FromDLPackOptions | undefined,
    producer: unknown,
  ): StridedMemoryView {
    const { buffer, layout, dtype, readonly, empty } = importDLPack(source, options);
    const state = bufferViewState(buffer, layout, { dtype, isReadonly: readonly });
    return new StridedMemoryView(stateToken, { ...state, ...empty, exportingObject: producer });
  }

  /**
   * This view for native code as DLPack (see `DLPackCapsule` of @cumem/memory): the memory
   * stays allocated until the consumer calls the deleter.
   * @throws TypeError for a view of JS memory (copy it into a pinned Buffer); CudaStateError when closed.
   */
  toDLPack(options?: ToDLPackOptions): DLPackCapsule {
    this.checkLive('toDLPack');
    return exportView(this, this.#state.buffer, options);
  }

  /**
   * Calls the producer's deleter of a view from {@link fromDLPack} (its derived views close
   * too). For a view of a `cudaArrayInterface` ({@link from}), ends its hold on the bytes: a
   * `modifyAllocation` that shrinks or moves them is refused until every view of the import is
   * closed (this one ends it for its derived views too) or collected. Else nothing.
   */
  close(): void {
    const state = this.#state;
    state.importHold?.release();
    closeImportedStruct(state.buffer);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * True for a StridedMemoryView this package made: not an object shaped like one, inheriting
   * from one or a Proxy of one (their pointer and layout would be whatever they claim).
   */
  static isInstance(value: unknown): value is StridedMemoryView {
    return viewBrand.has(value);
  }

  static {
    isViewObject = (value) => #state in value;
  }

  /** Address of the element at index (0, ..., 0). */
  get ptr(): bigint {
    return this.#state.base + BigInt(this.layout.offset * this.layout.itemsize);
  }

  /** Elements per axis. */
  get shape(): readonly number[] {
    return this.layout.shape;
  }

  /** Strides in elements. */
  get strides(): readonly number[] {
    return this.layout.strides;
  }

  /**
   * This view for other libraries (CUDA Array Interface v3; strides in bytes, null when C-contiguous).
   * @throws TypeError for a view of memory no device can address.
   */
  get cudaArrayInterface(): CudaArrayInterface {
    if (!this.isDeviceAccessible)
      throw new TypeError('a view of host-only memory has no CUDA Array Interface');
    this.checkLive('cudaArrayInterface');
    return exportInterface(this.layout, this.dtype, this.ptr, this.readonly);
  }

  /**
   * Another view of the same memory, kept alive the same way (the same `exportingObject`).
   * @param layout default this view's layout (offsets are relative to the same memory).
   * @param dtype default this dtype when the itemsize is unchanged, else the unsigned integer of the new itemsize.
   * @throws TypeError for a dtype whose size is not the layout's itemsize; RangeError when the layout reaches past the memory.
   */
  view(layout?: StridedLayout, dtype?: DType): StridedMemoryView {
    if (layout !== undefined && !StridedLayout.isInstance(layout)) {
      throw new TypeError(`layout must be a StridedLayout, got ${describeValue(layout)}`);
    }
    const nextLayout = layout ?? this.layout;
    const nextDType =
      dtype !== undefined
        ? checkDType(dtype)
        : nextLayout.itemsize === this.layout.itemsize
          ? this.dtype
          : defaultDTypeFor(nextLayout.itemsize);
    const state = this.#state;
    // Within the memory as it is now: a buffer may have shrunk since this view was made.
    const capacity = state.buffer === undefined ? state.capacity : liveCapacity(state.buffer, state.base);
    return new StridedMemoryView(stateToken, { ...state, layout: nextLayout, dtype: nextDType, capacity });
  }

  /**
   * Copies `other` (same shape and dtype, any layout) into this view.
   * @param options `stream` (default: the device's default stream) and `blocking` (default as
   *   cuda.core: `true` for host<->device copies, even with a stream; for device<->device, `true`
   *   only without a stream; see {@link StridedCopyOptions.blocking}).
   * @throws TypeError (not a view, dtype mismatch, read-only), RangeError (shape mismatch), CudaStateError (closed memory).
   */
  copyFrom(other: StridedMemoryView, options?: StridedCopyOptions): StridedCopyReport {
    const source = checkView(other, StridedMemoryView.isInstance, 'other');
    return stridedCopy(this.asCopyable('copyFrom'), source.asCopyable('copyFrom'), options);
  }

  /** Copies this view into `other`; as {@link copyFrom} with the roles swapped. */
  copyTo(other: StridedMemoryView, options?: StridedCopyOptions): StridedCopyReport {
    const destination = checkView(other, StridedMemoryView.isInstance, 'other');
    return stridedCopy(destination.asCopyable('copyTo'), this.asCopyable('copyTo'), options);
  }

  /**
   * What another process needs to open this view as an array without copying (see
   * {@link TensorIpcDescriptor}): the view must be of a buffer of an IPC-enabled pool. The
   * exporter keeps the buffer open until the importer says it is done.
   * @throws TypeError for a view of other memory (as `buffer.ipcDescriptor`); CudaStateError when closed.
   */
  get ipcDescriptor(): TensorIpcDescriptor {
    return this.toIpcDescriptor();
  }

  /**
   * {@link ipcDescriptor} with options: `event`, an interprocess Event recorded after the
   * producer's writes, travels in the descriptor so the consumer waits on it.
   */
  toIpcDescriptor(options?: TensorIpcDescriptorOptions): TensorIpcDescriptor {
    const event = eventHandleOption(options);
    const buffer = this.#state.buffer;
    if (buffer === undefined) {
      throw new TypeError('only a view of a Buffer (StridedMemoryView.fromBuffer) has an ipcDescriptor');
    }
    this.checkLive('toIpcDescriptor');
    return makeTensorDescriptor(buffer, this.layout, this.dtype, event);
  }

  /**
   * Opens a view another process exported ({@link ipcDescriptor}) through `mr`, the resource
   * imported from the exporter's allocation handle (`fromAllocationHandle`). The view's Buffer
   * is `exportingObject`; close it when done. A descriptor's `event` is not waited on here:
   * open it with `Event.fromIpcHandle` and wait on it before reading.
   * @throws TypeError for a malformed descriptor or a resource that cannot import; RangeError for a layout past the buffer.
   */
  static fromIpcDescriptor(
    mr: MemoryResource,
    descriptor: TensorIpcDescriptor,
    options?: StreamOrderOptions,
  ): StridedMemoryView {
    return openTensorDescriptor(mr, descriptor, options, (buffer, layout, dtype) =>
      StridedMemoryView.fromBuffer(buffer, layout, { dtype }),
    );
  }

  toString(): string {
    return `StridedMemoryView(${this.dtype}, shape=[${this.shape.join(', ')}], device=${this.deviceId})`;
  }

  // The view's bytes against its Buffer as it is now, at each use: closed, or shrunk by
  // modifyAllocation since the view was made (the view keeps its offset and layout, not a size).
  private checkLive(member: string): void {
    const { buffer, base } = this.#state;
    if (buffer === undefined) return;
    const state = bufferState(buffer);
    if (state.isClosed) throw CudaStateError.closed('Buffer (of a StridedMemoryView)');
    const offset = Number(base - state.pointer);
    checkLiveExtent(buffer, offset, this.layout.requiredSizeInBytes(), `StridedMemoryView.${member}`);
  }

  private asCopyable(member: string) {
    const state = this.#state;
    return {
      layout: this.layout,
      dtype: this.dtype,
      readonly: this.readonly,
      deviceId: this.deviceId,
      copySide: (): CopySide => {
        this.checkLive(member);
        return state.hostBytes
          ? { kind: 'host', bytes: state.hostBytes }
          : pointerSide(state.base, state.buffer, this.deviceId);
      },
    };
  }
}

/** Bytes of `buffer` from `base` on, as the buffer is now. */
function liveCapacity(buffer: Buffer, base: bigint): number {
  const state = bufferState(buffer);
  return Math.max(0, state.size - Number(base - state.pointer));
}

// One brand check in front of every public method and getter: a Proxy of a view, or an object
// inheriting from one, gets a TypeError naming the member instead of a private-field error.
// The private helpers run only on views already checked.
guardMembers(StridedMemoryView, StridedMemoryView.isInstance, ['checkLive', 'asCopyable']);
