// cuda.core's tests of StridedMemoryView and its exchange formats, translated case by case.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/test_utils.py at commit
// a86b235c4e9b60f0436c6283b240416ea203db0d. Each case's title starts with the upstream test name.
//
// What stands in for the Python libraries: NumPy arrays are TypedArrays (`fromHost`, shape and
// strides given beside them, since a TypedArray is 1-D), or pinned Buffers where native code must
// read the memory; CuPy arrays are views of device Buffers handed over through an object with
// `toDLPack` and `cudaArrayInterface` (CuPy exposes both); Numba's device arrays, which only have
// the CUDA Array Interface, are objects with `cudaArrayInterface` alone.
//
// Documented deviations from cuda.core tested as cumem documents them (utils README,
// "StridedMemoryView"): `strides` is always an array of element strides (cuda.core gives None
// for C-contiguous views); host memory has `deviceId` -1 on every path; there is no public
// constructor (cuda.core's deprecated one); a view always has a dtype (the unsigned integer of
// the itemsize by default); a view of JS memory has no DLPack export (pinned memory has one);
// itemsizes are powers of two and structured dtypes are refused.
//
// Not ported:
// - test_cast_to_3_tuple_success, test_cast_to_3_tuple_value_error: an internal helper of
//   cuda.core's launch configuration; cumem checks launch geometry in @cumem/compute.
// - test_strided_memory_view_exposes_dlpack_c_exchange_api_capsule: a CPython capsule of C
//   function pointers (the DLPack C exchange API); cumem has no such object.
// - test_ml_dtypes_bfloat16_dlpack_requires_ml_dtypes: an optional Python package; cumem's
//   bfloat16 needs nothing.
// - test_from_array_interface[structured-dtype]: a TypedArray cannot carry a structured dtype;
//   a structured typestr is refused (test_struct_array).
import {
  type Buffer,
  currentDriver,
  DeviceMemoryResource,
  LegacyPinnedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { dlpackStruct } from '@cumem/memory/internal';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type CudaArrayInterface,
  DTYPE_ITEMSIZE,
  type DType,
  type LayoutOrder,
  StridedLayout,
  StridedMemoryView,
} from '../../src/index.js';
import { adapters, strictTypeError } from '../support.js';

const { DLDeviceType, TensorField, VersionedField } = dlpackStruct;

/** Dense element strides of `shape` in C or F order, worked out axis by axis (upstream's `_dense_strides`). */
function denseStrides(shape: readonly number[], order: 'C' | 'F'): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  if (order === 'C') {
    for (let axis = shape.length - 2; axis >= 0; axis--)
      strides[axis] = strides[axis + 1]! * shape[axis + 1]!;
  } else {
    for (let axis = 1; axis < shape.length; axis++) strides[axis] = strides[axis - 1]! * shape[axis - 1]!;
  }
  return strides;
}

/**
 * `view.ptr` is the array's address (NumPy's `ctypes.data`). An empty array has no bytes to point
 * at, and cumem promises no address for it (each empty view gets fresh empty memory).
 */
function expectHostAddress(view: StridedMemoryView, array: ArrayBufferView): void {
  if (array.byteLength > 0) expect(view.ptr).toBe(currentDriver().addressOf(array));
}

const volumeOf = (shape: readonly number[]) => shape.reduce((product, extent) => product * extent, 1);

/** A producer like a CuPy array: DLPack first, the CUDA Array Interface too. */
interface CupyLike {
  readonly toDLPack: (options?: unknown) => unknown;
  readonly cudaArrayInterface: CudaArrayInterface;
}

/** A producer like a Numba device array: the CUDA Array Interface only. */
interface NumbaLike {
  readonly cudaArrayInterface: CudaArrayInterface;
}

function cupyLike(view: StridedMemoryView): CupyLike {
  return {
    toDLPack: (options) => view.toDLPack(options as never),
    cudaArrayInterface: view.cudaArrayInterface,
  };
}

function numbaLike(view: StridedMemoryView): NumbaLike {
  return { cudaArrayInterface: view.cudaArrayInterface };
}

describeEachDriver(adapters, 'cuda.core test_utils.py', (entry) => {
  let mr: DeviceMemoryResource;
  let pinned: LegacyPinnedMemoryResource;
  const opened: { close(): void }[] = [];

  beforeAll(() => {
    useDriver(entry.driver);
    mr = new DeviceMemoryResource(0);
    pinned = new LegacyPinnedMemoryResource();
  });

  afterAll(() => {
    for (const item of opened.reverse()) item.close();
  });

  /** A device buffer of `size` bytes, closed after the file's cases. */
  function deviceBuffer(size: number): Buffer {
    const buffer = mr.allocate(size);
    opened.push(buffer);
    return buffer;
  }

  /** The DLPack device type and id written into an export (read before anyone consumes it). */
  function dlpackDevice(pointer: bigint): [number, number] {
    const bytes = entry.driver.readNativeMemory(pointer, VersionedField.size);
    const fields = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return [
      fields.getInt32(VersionedField.tensor + TensorField.deviceType, true),
      fields.getInt32(VersionedField.tensor + TensorField.deviceId, true),
    ];
  }

  // ---- TestViewCPU ---------------------------------------------------------------------------

  // NumPy arrays of upstream's TestViewCPU: the JS memory, and the shape / element strides NumPy
  // gives them (np.empty(3, int32); (6, 6) float64 [::2, ::2]; (3, 4) order F; a 0-d float16,
  // here uint16 since Node 20 has no Float16Array; an empty float64 array).
  const cpuSamples = [
    { name: 'int32 (3,)', array: () => new Int32Array(3), shape: [3], strides: [1], dtype: 'int32' },
    {
      name: 'float64 (6, 6)[::2, ::2]',
      array: () => new Float64Array(36),
      shape: [3, 3],
      strides: [12, 2],
      dtype: 'float64',
    },
    {
      name: 'float64 (3, 4) order F',
      array: () => new Float64Array(12),
      shape: [3, 4],
      strides: [1, 3],
      dtype: 'float64',
    },
    { name: '0-d uint16', array: () => new Uint16Array(1), shape: [], strides: [], dtype: 'uint16' },
    { name: 'empty float64', array: () => new Float64Array(0), shape: [0], strides: [1], dtype: 'float64' },
  ] as const;

  /** Upstream's TestViewCPU._check_view (strides always given: cumem never answers null). */
  function checkCpuView(
    view: StridedMemoryView,
    array: ArrayBufferView,
    shape: readonly number[],
    strides: readonly number[],
    dtype: DType,
  ): void {
    expect(StridedMemoryView.isInstance(view)).toBe(true);
    expectHostAddress(view, array);
    expect(view.shape).toEqual(shape);
    expect(view.layout.volume).toBe(volumeOf(shape));
    expect(view.strides).toEqual(strides);
    expect(view.dtype).toBe(dtype);
    expect(view.deviceId).toBe(-1);
    expect(view.isDeviceAccessible).toBe(false);
    expect(view.exportingObject).toBe(array);
    // JS has no read-only TypedArrays: every host view is writable, as a writable NumPy array's.
    expect(view.readonly).toBe(false);
  }

  for (const sample of cpuSamples) {
    it(`test_args_viewable_as_strided_memory_cpu: ${sample.name}, as a function argument (a TypedArray, so 1-D) through from(arg, { stream: -1 })`, () => {
      const array = sample.array();
      const itemsize = DTYPE_ITEMSIZE[sample.dtype];
      const length = array.byteLength / itemsize;
      checkCpuView(StridedMemoryView.from(array, { stream: -1 }), array, [length], [1], sample.dtype);
    });

    it(`test_strided_memory_view_cpu: ${sample.name} through fromHost`, () => {
      const array = sample.array();
      const view = StridedMemoryView.fromHost(array, { shape: sample.shape, strides: sample.strides });
      checkCpuView(view, array, sample.shape, sample.strides, sample.dtype);
    });

    it(`test_strided_memory_view_cpu_init: ${sample.name}: no public constructor (cumem's deviation from the deprecated one)`, () => {
      const Constructor = StridedMemoryView as unknown as new (...args: unknown[]) => unknown;
      expect(() => new Constructor(sample.array(), -1)).toThrow(/no public constructor/);
      expect(() => new Constructor(sample.array(), -1)).toThrow(strictTypeError);
    });
  }

  // ---- TestViewGPU / TestViewCudaArrayInterfaceGPU -------------------------------------------

  interface GpuSample {
    readonly name: string;
    readonly useStream: boolean;
    /** The producer (CuPy-like or Numba-like) and the view it exports. */
    make(): { producer: CupyLike | NumbaLike; source: StridedMemoryView };
  }

  function deviceView(layout: StridedLayout, dtype: DType, bytes: number): StridedMemoryView {
    return StridedMemoryView.fromBuffer(deviceBuffer(bytes), layout, { dtype });
  }

  // Upstream's gpu_array_samples: three CuPy arrays, then two Numba arrays (no DLPack).
  const gpuSamples: GpuSample[] = [
    {
      name: 'cupy-complex64',
      useStream: false,
      make() {
        const source = deviceView(StridedLayout.dense([3], 8), 'complex64', 24);
        return { producer: cupyLike(source), source };
      },
    },
    {
      name: 'cupy-float64 (6, 6)[::2, ::2]',
      useStream: true,
      make() {
        const layout = StridedLayout.dense([6, 6], 8).sliced([null, null, 2], [null, null, 2]);
        const source = deviceView(layout, 'float64', 36 * 8);
        return { producer: cupyLike(source), source };
      },
    },
    {
      name: 'cupy-fortran',
      useStream: true,
      make() {
        const source = deviceView(StridedLayout.dense([3, 4], 8, 'F'), 'float64', 12 * 8);
        return { producer: cupyLike(source), source };
      },
    },
    {
      name: 'numba-cuda-int8',
      useStream: false,
      make() {
        const source = deviceView(StridedLayout.dense([2], 1), 'int8', 2);
        return { producer: numbaLike(source), source };
      },
    },
    {
      name: 'numba-cuda-float32',
      useStream: true,
      make() {
        const source = deviceView(StridedLayout.dense([4, 2], 4), 'float32', 32);
        return { producer: numbaLike(source), source };
      },
    },
  ];

  /** Upstream's TestViewGPU._check_view. */
  function checkGpuView(view: StridedMemoryView, producer: unknown, source: StridedMemoryView): void {
    expect(StridedMemoryView.isInstance(view)).toBe(true);
    expect(view.ptr).toBe(source.ptr);
    expect(view.shape).toEqual(source.shape);
    expect(view.layout.volume).toBe(source.layout.volume);
    expect(view.strides).toEqual(source.strides);
    expect(view.dtype).toBe(source.dtype);
    expect(view.deviceId).toBe(0);
    expect(view.isDeviceAccessible).toBe(true);
    expect(view.exportingObject).toBe(producer);
  }

  /** The consumer stream of a sample: a new Stream, or -1 ("the consumer does not care"). */
  function consumerStream(sample: GpuSample): Stream | -1 {
    if (!sample.useStream) return -1;
    const stream = Stream.create(0);
    opened.push(stream);
    return stream;
  }

  for (const sample of gpuSamples) {
    it(`test_args_viewable_as_strided_memory_gpu: ${sample.name}, through from(arg, { stream })`, () => {
      const { producer, source } = sample.make();
      const view = StridedMemoryView.from(producer, { stream: consumerStream(sample) });
      checkGpuView(view, producer, source);
      view.close();
    });

    it(`test_strided_memory_view_cpu: ${sample.name}, through from (DLPack first, else the CUDA Array Interface)`, () => {
      const { producer, source } = sample.make();
      const view = StridedMemoryView.from(producer, { stream: consumerStream(sample) });
      checkGpuView(view, producer, source);
      view.close();
    });

    it(`test_strided_memory_view_init: ${sample.name}: no public constructor (cumem's deviation from the deprecated one)`, () => {
      const { producer } = sample.make();
      const Constructor = StridedMemoryView as unknown as new (...args: unknown[]) => unknown;
      expect(() => new Constructor(producer, -1)).toThrow(strictTypeError);
    });

    it(`test_cuda_array_interface_gpu: ${sample.name}, the CUDA Array Interface path forced`, () => {
      const { producer, source } = sample.make();
      // Only the interface, so from() cannot take DLPack (upstream calls from_cuda_array_interface).
      const interfaceOnly = { cudaArrayInterface: producer.cudaArrayInterface };
      // As upstream's check: the interface itself says null strides for C-contiguous arrays.
      expect(interfaceOnly.cudaArrayInterface.strides === null).toBe(source.layout.isContiguousC);
      const view = StridedMemoryView.from(interfaceOnly, { stream: consumerStream(sample) });
      checkGpuView(view, interfaceOnly, source);
      view.close();
    });
  }

  // ---- DLPack export -------------------------------------------------------------------------

  it('test_strided_memory_view_dlpack_export_numpy_roundtrip: JS memory is refused (documented); pinned memory round-trips as kDLCUDAHost', () => {
    const values = Int32Array.from({ length: 24 }, (_, i) => i);
    const everyOther = StridedLayout.dense([4, 6], 4).sliced(null, [null, null, 2]);
    const hostView = StridedMemoryView.fromHost(values, { shape: [4, 6] }).view(everyOther);
    expect(() => hostView.toDLPack()).toThrow(strictTypeError);

    const host = pinned.allocate(values.byteLength);
    opened.push(host);
    host.copyFrom(values);
    const source = StridedMemoryView.fromBuffer(host, everyOther, { dtype: 'int32' });
    const capsule = source.toDLPack();
    expect(dlpackDevice(capsule.pointer)[0]).toBe(DLDeviceType.CUDAHost);
    const out = StridedMemoryView.fromDLPack(capsule);
    expect([out.shape, out.dtype]).toEqual([source.shape, 'int32']);
    const read = new Int32Array(12);
    out.copyTo(StridedMemoryView.fromHost(read, { shape: [4, 3] }));
    expect([...read]).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]);
    out.close();
  });

  it('test_strided_memory_view_dlpack_export_cupy_roundtrip: a strided device view exports as kDLCUDA on its device', () => {
    const values = Float32Array.from({ length: 24 }, (_, i) => i);
    const buffer = deviceBuffer(values.byteLength);
    buffer.copyFrom(values);
    const layout = StridedLayout.dense([4, 6], 4).sliced(null, [null, null, 2]);
    const source = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32' });
    const capsule = source.toDLPack();
    expect(dlpackDevice(capsule.pointer)).toEqual([DLDeviceType.CUDA, 0]);
    const out = StridedMemoryView.fromDLPack(capsule);
    const read = new Float32Array(12);
    out.copyTo(StridedMemoryView.fromHost(read, { shape: [4, 3] }));
    expect([...read]).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]);
    out.close();
  });

  it('test_strided_memory_view_dlpack_export_requires_dtype: a view without a dtype gets uint8 and exports (cumem deviation: never dtype-less)', () => {
    const buffer = deviceBuffer(16);
    const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([16], 1));
    expect(view.dtype).toBe('uint8');
    const back = StridedMemoryView.fromDLPack(view.toDLPack());
    expect([back.dtype, back.shape, back.ptr]).toEqual(['uint8', [16], buffer.handle]);
    back.close();
  });

  // ---- from_buffer ---------------------------------------------------------------------------

  const fromBufferShapes = [[], [2, 3], [10, 10], [10, 13, 11]] as const;
  for (const shape of fromBufferShapes) {
    for (const dtype of ['int8', 'uint32'] as const) {
      for (const order of ['C', 'F'] as const) {
        for (const readonly of [true, false]) {
          it(`test_from_buffer: shape [${shape}], ${dtype}, order ${order}, readonly ${readonly}`, () => {
            const itemsize = DTYPE_ITEMSIZE[dtype];
            const layout = StridedLayout.dense(shape, itemsize, order);
            const required = layout.requiredSizeInBytes();
            expect(required).toBe(volumeOf(shape) * itemsize);
            const buffer = deviceBuffer(required);
            const view = StridedMemoryView.fromBuffer(
              buffer,
              new StridedLayout(shape, layout.strides, itemsize),
              { dtype, isReadonly: readonly },
            );
            expect(view.exportingObject).toBe(buffer);
            expect(view.layout.equals(layout)).toBe(true);
            expect(view.ptr).toBe(buffer.handle);
            expect(view.shape).toEqual(shape);
            expect(view.strides).toEqual(denseStrides(shape, order));
            expect(view.dtype).toBe(dtype);
            expect(view.deviceId).toBe(0);
            expect(view.isDeviceAccessible).toBe(true);
            expect(view.readonly).toBe(readonly);
          });
        }
      }
    }
  }

  it('test_from_buffer_incompatible_dtype_and_itemsize: a dtype whose size is not the itemsize is a TypeError; so is no layout (cumem carries the itemsize in the layout)', () => {
    const layout = StridedLayout.dense([5], 2);
    const buffer = deviceBuffer(layout.requiredSizeInBytes());
    expect(() =>
      StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([5], 1), { dtype: 'int16' }),
    ).toThrow(/int16 has 2-byte elements, the layout 1/);
    expect(() => StridedMemoryView.fromBuffer(buffer, undefined as never, { dtype: 'int16' })).toThrow(
      strictTypeError,
    );
  });

  for (const order of ['C', 'F'] as const) {
    it(`test_from_buffer_sliced: order ${order}: the slice's offset moves ptr by offset * itemsize`, () => {
      const layout = StridedLayout.dense([5, 7], 2, order);
      const buffer = deviceBuffer(layout.requiredSizeInBytes());
      const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([5, 7], 2), { dtype: 'int16' });
      expect(view.shape).toEqual([5, 7]);
      expect(view.ptr).toBe(buffer.handle);
      const sliced = view.view(layout.sliced([null, -2], [3, null]));
      expect(sliced.shape).toEqual([3, 4]);
      const expectedOffset = order === 'C' ? 3 : 3 * 5;
      expect(sliced.layout.offset).toBe(expectedOffset);
      expect(sliced.layout.offset * sliced.layout.itemsize).toBe(expectedOffset * 2);
      expect(sliced.ptr).toBe(view.ptr + BigInt(expectedOffset * 2));
      expect(sliced.ptr).toBe(buffer.handle + BigInt(expectedOffset * 2));
    });
  }

  it('test_from_buffer_too_small: a layout of 40 bytes over a buffer of 20 is a RangeError', () => {
    const layout = StridedLayout.dense([5, 4], 2);
    const buffer = deviceBuffer(20);
    expect(() =>
      StridedMemoryView.fromBuffer(buffer, new StridedLayout(layout.shape, layout.strides, 2), {
        dtype: 'int16',
      }),
    ).toThrow(RangeError);
    expect(() => StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'int16' })).toThrow(/40 bytes.*20/);
  });

  it('test_from_buffer_disallowed_negative_offset: elements before the buffer are a RangeError', () => {
    const layout = new StridedLayout([5, 4], [-4, 1], 1);
    const buffer = deviceBuffer(20);
    expect(() => StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'uint8' })).toThrow(RangeError);
  });

  // ---- views of external arrays, sliced --------------------------------------------------------

  /**
   * An int32 arange of `shape` in `order` in device memory, handed over as upstream does it:
   * `dlpack` through a DLPack producer, `cai` through the CUDA Array Interface alone (upstream's
   * `_EnforceCAIView`). Returns the imported view and the buffer.
   */
  function importedArange(
    shape: readonly number[],
    order: LayoutOrder,
    viewAs: 'dlpack' | 'cai',
    slice?: Parameters<StridedLayout['sliced']>,
  ): { view: StridedMemoryView; buffer: Buffer } {
    const count = volumeOf(shape);
    const buffer = deviceBuffer(count * 4);
    buffer.copyFrom(Int32Array.from({ length: count }, (_, i) => i));
    let layout = StridedLayout.dense(shape, 4, order);
    if (slice !== undefined) layout = layout.sliced(...slice);
    const source = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'int32' });
    const producer = viewAs === 'dlpack' ? cupyLike(source) : numbaLike(source);
    return { view: StridedMemoryView.from(producer), buffer };
  }

  // Upstream's parameters, and what NumPy answers for a[slices], worked out by hand: the first
  // element's offset and the strides, in elements, for each order.
  const externalCases = [
    {
      shape: [5, 6],
      slices: [2, [1, -1]] as Parameters<StridedLayout['sliced']>,
      name: '(2, 1:-1)',
      shapeAfter: [4],
      expected: { C: { offset: 2 * 6 + 1, strides: [1] }, F: { offset: 2 + 5, strides: [5] } },
    },
    {
      shape: [10, 13, 11],
      slices: [
        [null, null, 2],
        [null, null, -1],
        [2, -3],
      ] as Parameters<StridedLayout['sliced']>,
      name: '(::2, ::-1, 2:-3)',
      shapeAfter: [5, 13, 6],
      expected: {
        C: { offset: 12 * 11 + 2, strides: [2 * 143, -11, 1] },
        F: { offset: 12 * 10 + 2 * 130, strides: [2, -10, 130] },
      },
    },
  ] as const;

  for (const sample of externalCases) {
    for (const order of ['C', 'F'] as const) {
      for (const viewAs of ['dlpack', 'cai'] as const) {
        it(`test_view_sliced_external: shape [${sample.shape}], slices ${sample.name}, order ${order}, ${viewAs}`, () => {
          const { view, buffer } = importedArange(sample.shape, order, viewAs);
          const nbytes = volumeOf(sample.shape) * 4;
          const layout = view.layout;
          expect(layout.isDense).toBe(true);
          expect(layout.requiredSizeInBytes()).toBe(nbytes);
          expect(view.ptr).toBe(buffer.handle);

          const slicedLayout = layout.sliced(...sample.slices);
          const slicedView = view.view(slicedLayout);
          const expected = sample.expected[order];
          expect(slicedView.ptr).toBe(buffer.handle + BigInt(expected.offset * 4));
          expect(slicedView.ptr).not.toBe(view.ptr);
          expect(slicedLayout.requiredSizeInBytes()).toBeGreaterThanOrEqual(0);
          expect(slicedLayout.requiredSizeInBytes()).toBeLessThanOrEqual(nbytes);
          expect(slicedLayout.isDense).toBe(false);
          expect(slicedView.layout).toBe(slicedLayout);
          expect(slicedView.dtype).toBe(view.dtype);
          expect(slicedView.layout.itemsize).toBe(4);
          expect(layout.itemsize).toBe(4);
          expect(slicedView.shape).toEqual(sample.shapeAfter);
          expect(slicedView.layout.stridesInBytes).toEqual(expected.strides.map((stride) => stride * 4));
          view.close();
        });
      }
    }
  }

  for (const order of ['C', 'F'] as const) {
    for (const viewAs of ['dlpack', 'cai'] as const) {
      it(`test_view_sliced_external_negative_offset: order ${order}, ${viewAs}: a reversed array and its [3:]`, () => {
        // a = arange(5)[::-1]: element 0 is the last int32 of the buffer.
        const { view, buffer } = importedArange([5], order, viewAs, [[null, null, -1]]);
        const layout = view.layout;
        expect(layout.isDense).toBe(false);
        expect(layout.strides).toEqual([-1]);
        expect(view.ptr).toBe(buffer.handle + 16n);

        const slicedLayout = layout.sliced([3, null]);
        const slicedView = view.view(slicedLayout);
        expect(slicedView.ptr).toBe(buffer.handle + 4n);
        expect(slicedView.ptr).toBe(view.ptr - 3n * 4n);
        expect(slicedLayout.isDense).toBe(false);
        expect(slicedView.layout).toBe(slicedLayout);
        expect(slicedView.dtype).toBe(view.dtype);
        expect(slicedView.layout.itemsize).toBe(4);
        expect(slicedView.shape).toEqual([2]);
        expect(slicedView.layout.stridesInBytes).toEqual([-4]);
        view.close();
      });
    }
  }

  for (const viewAs of ['dlpack', 'cai'] as const) {
    for (const shape of [[0], [0, 0], [0, 0, 0]]) {
      for (const dtype of ['int64', 'uint8', 'float64'] as const) {
        it(`test_view_zero_size_array: ${viewAs}, shape [${shape}], ${dtype}`, () => {
          const source = StridedMemoryView.fromBuffer(
            deviceBuffer(64),
            StridedLayout.dense(shape, DTYPE_ITEMSIZE[dtype]),
            { dtype },
          );
          const producer = viewAs === 'dlpack' ? cupyLike(source) : numbaLike(source);
          const view = StridedMemoryView.from(producer);
          expect(view.layout.volume).toBe(0);
          expect(view.shape).toEqual(shape);
          expect(view.dtype).toBe(dtype);
          view.close();
        });
      }
    }
  }

  // The DLPack struct names the device (kDLCUDA, id 0), as cuda.core's `device_id` and
  // `is_device_accessible` report it, though a tensor of no elements has no byte to ask about.
  it('test_view_zero_size_array (dlpack): an empty kDLCUDA tensor keeps the device its struct names', () => {
    const source = StridedMemoryView.fromBuffer(deviceBuffer(64), StridedLayout.dense([0, 3], 8), {
      dtype: 'float64',
    });
    const view = StridedMemoryView.from(cupyLike(source));
    expect(view.deviceId).toBe(0);
    expect(view.isDeviceAccessible).toBe(true);
    expect(view.cudaArrayInterface.shape).toEqual([0, 3]);
    view.close();
  });

  it('test_from_buffer_with_non_power_of_two_itemsize: a 5-byte element is refused (documented: itemsizes are powers of two)', () => {
    expect(() => new StridedLayout([1], null, 5)).toThrow(RangeError);
    expect(() => new StridedLayout([1], null, 5)).toThrow(/power of two/);
  });

  it('test_struct_array: a structured typestr (|V16) is refused with a RangeError (cumem has no structured dtypes)', () => {
    const buffer = deviceBuffer(32);
    const structured = {
      cudaArrayInterface: {
        shape: [2],
        typestr: '|V16',
        data: [buffer.handle, false],
        strides: null,
        version: 3,
      },
    };
    expect(() => StridedMemoryView.from(structured)).toThrow(RangeError);
    expect(() => StridedMemoryView.from(structured)).toThrow(/no matching dtype/);
  });

  // ---- from_array_interface: NumPy arrays are TypedArrays ------------------------------------

  interface HostSample {
    readonly id: string;
    readonly array: () => ArrayBufferView;
    readonly shape?: readonly number[];
    readonly strides?: readonly number[];
    /** For complex dtypes, which JS has no TypedArray for: viewed as pairs of floats. */
    readonly complex?: 'complex64' | 'complex128';
    readonly dtype: DType;
    readonly expectedStrides: readonly number[];
  }

  const hostSamples: HostSample[] = [
    { id: '1d-int32', array: () => Int32Array.of(1, 2, 3), dtype: 'int32', expectedStrides: [1] },
    { id: '1d-float64', array: () => Float64Array.of(1, 2, 3), dtype: 'float64', expectedStrides: [1] },
    {
      id: '1d-complex128',
      array: () => Float64Array.of(1, 2, 3, 4),
      complex: 'complex128',
      shape: [2],
      dtype: 'complex128',
      expectedStrides: [1],
    },
    {
      id: '1d-complex64',
      array: () => Float32Array.of(1, 2, 3, 4, 5, 6),
      complex: 'complex64',
      shape: [3],
      dtype: 'complex64',
      expectedStrides: [1],
    },
    { id: '1d-uint8', array: () => Uint8Array.of(1, 2, 3, 4, 5), dtype: 'uint8', expectedStrides: [1] },
    { id: '1d-int64', array: () => BigInt64Array.of(1n, 2n), dtype: 'int64', expectedStrides: [1] },
    { id: '1d-int16', array: () => Int16Array.of(100, 200, 300), dtype: 'int16', expectedStrides: [1] },
    { id: '1d-uint16', array: () => Uint16Array.of(1000, 2000, 3000), dtype: 'uint16', expectedStrides: [1] },
    {
      id: '1d-uint64',
      array: () => BigUint64Array.of(10000n, 20000n, 30000n),
      dtype: 'uint64',
      expectedStrides: [1],
    },
    {
      id: '2d-c-int32',
      array: () => Int32Array.of(1, 2, 3, 4, 5, 6),
      shape: [2, 3],
      dtype: 'int32',
      expectedStrides: [3, 1],
    },
    {
      id: '2d-c-float32',
      array: () => Float32Array.of(1, 2, 3, 4),
      shape: [2, 2],
      dtype: 'float32',
      expectedStrides: [2, 1],
    },
    {
      id: '2d-f-int32',
      array: () => Int32Array.of(1, 4, 2, 5, 3, 6),
      shape: [2, 3],
      strides: [1, 2],
      dtype: 'int32',
      expectedStrides: [1, 2],
    },
    {
      id: '2d-f-float64',
      array: () => Float64Array.of(1, 3, 2, 4),
      shape: [2, 2],
      strides: [1, 2],
      dtype: 'float64',
      expectedStrides: [1, 2],
    },
    {
      id: '3d-int32',
      array: () => Int32Array.of(1, 2, 3, 4, 5, 6, 7, 8),
      shape: [2, 2, 2],
      dtype: 'int32',
      expectedStrides: [4, 2, 1],
    },
    {
      id: '3d-float64',
      array: () => new Float64Array(24).fill(1),
      shape: [2, 3, 4],
      dtype: 'float64',
      expectedStrides: [12, 4, 1],
    },
    {
      id: '1d-strided-int32',
      array: () => Int32Array.of(1, 2, 3, 4, 5, 6),
      shape: [3],
      strides: [2],
      dtype: 'int32',
      expectedStrides: [2],
    },
    {
      id: '2d-strided-float64',
      array: () => Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8),
      shape: [2, 2],
      strides: [4, 2],
      dtype: 'float64',
      expectedStrides: [4, 2],
    },
    {
      id: '2d-strided-2x2-int32',
      array: () => Int32Array.from({ length: 20 }, (_, i) => i),
      shape: [2, 3],
      strides: [10, 2],
      dtype: 'int32',
      expectedStrides: [10, 2],
    },
    { id: 'scalar-int32', array: () => Int32Array.of(42), shape: [], dtype: 'int32', expectedStrides: [] },
    {
      id: 'scalar-float64',
      array: () => Float64Array.of(3.14),
      shape: [],
      dtype: 'float64',
      expectedStrides: [],
    },
    { id: 'empty-1d-int32', array: () => new Int32Array(0), dtype: 'int32', expectedStrides: [1] },
    {
      id: 'empty-2d-float64',
      array: () => new Float64Array(0),
      shape: [0, 3],
      dtype: 'float64',
      expectedStrides: [3, 1],
    },
    { id: 'single-element', array: () => Int32Array.of(1), dtype: 'int32', expectedStrides: [1] },
  ];

  for (const sample of hostSamples) {
    it(`test_from_array_interface: ${sample.id} (deviceId -1 for host memory: cumem's documented deviation)`, () => {
      const array = sample.array();
      const view =
        sample.complex === undefined
          ? StridedMemoryView.fromHost(array, { shape: sample.shape, strides: sample.strides })
          : StridedMemoryView.fromHost(array).view(
              StridedLayout.dense(sample.shape!, 2 * (array as Float32Array).BYTES_PER_ELEMENT),
              sample.complex,
            );
      const shape = sample.shape ?? [array.byteLength / DTYPE_ITEMSIZE[sample.dtype]];
      expect(view.layout.volume).toBe(volumeOf(shape));
      expect(view.dtype).toBe(sample.dtype);
      expect(view.shape).toEqual(shape);
      expectHostAddress(view, array);
      expect(view.deviceId).toBe(-1);
      expect(view.isDeviceAccessible).toBe(false);
      expect(view.exportingObject).toBe(array);
      expect(view.readonly).toBe(false);
      expect(view.strides).toEqual(sample.expectedStrides);
    });
  }

  it('test_from_array_interface_unsupported_strides: byte strides that are no multiple of the itemsize are refused at construction', () => {
    // Field 'b' (float64 at byte 4) of two 12-byte records: stride 12 bytes, itemsize 8.
    const buffer = deviceBuffer(24);
    const field = {
      cudaArrayInterface: {
        shape: [2],
        typestr: '<f8',
        data: [buffer.handle + 4n, false],
        strides: [12],
        version: 3,
      },
    };
    expect(() => StridedMemoryView.from(field)).toThrow(RangeError);
    expect(() => StridedMemoryView.from(field)).toThrow(/not a multiple of the 8-byte/);
  });

  // ---- bfloat16 through DLPack ---------------------------------------------------------------

  const bfloat16Slices = [
    { id: 'contiguous', slice: [null, null] },
    {
      id: 'strided',
      slice: [
        [null, null, 2],
        [1, null, 2],
      ],
    },
  ] as const;

  /** A (2, 3) bfloat16 device array, sliced; `legacy`: the producer hands out a pre-1.0 struct. */
  function bfloat16Import(slice: Parameters<StridedLayout['sliced']>, legacy: boolean) {
    const layout = StridedLayout.dense([2, 3], 2).sliced(...slice);
    const source = StridedMemoryView.fromBuffer(deviceBuffer(12), layout, { dtype: 'bfloat16' });
    const producer = legacy ? { toDLPack: () => source.toDLPack({ maxVersion: [0, 8] }) } : cupyLike(source);
    const view = StridedMemoryView.from(producer, { stream: -1 });
    return { source, producer, view };
  }

  for (const { id, slice } of bfloat16Slices) {
    it(`test_ml_dtypes_bfloat16_dlpack: ${id}`, () => {
      const { source, producer, view } = bfloat16Import(slice as never, false);
      expect(view.layout.volume).toBe(source.layout.volume);
      expect(view.dtype).toBe('bfloat16');
      expect(view.shape).toEqual(source.shape);
      expect(view.ptr).toBe(source.ptr);
      expect(view.deviceId).toBe(0);
      expect(view.isDeviceAccessible).toBe(true);
      expect(view.exportingObject).toBe(producer);
      expect(view.readonly).toBe((producer as CupyLike).cudaArrayInterface.data[1]);
      expect(view.strides).toEqual(source.strides);
      view.close();
    });

    it(`test_ml_dtypes_bfloat16_torch_dlpack: ${id}, from a producer of legacy (unversioned) DLPack structs`, () => {
      const { source, producer, view } = bfloat16Import(slice as never, true);
      expect(view.layout.volume).toBe(source.layout.volume);
      expect(view.dtype).toBe('bfloat16');
      expect(view.shape).toEqual(source.shape);
      expect(view.ptr).toBe(source.ptr);
      expect(view.deviceId).toBe(0);
      expect(view.isDeviceAccessible).toBe(true);
      expect(view.exportingObject).toBe(producer);
      expect(view.strides).toEqual(source.strides);
      view.close();
    });
  }
});
