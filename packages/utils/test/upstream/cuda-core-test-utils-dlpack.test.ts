// cuda.core's DLPack tests of StridedMemoryView, translated case by case.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/test_utils_dlpack.py at commit
// 139fc1447582f0c4a9a11b4411528d07eb2847e6. Each case's title starts with the upstream test name.
//
// What stands in for the Python side: a NumPy array is a pinned Buffer viewed with
// `fromBuffer` (cumem refuses to export JS memory, below); `np.from_dlpack(view)` is
// `StridedMemoryView.fromDLPack(view.toDLPack())`, read back by a copy; a PyCapsule is a
// DLPackCapsule; a struct a native producer hands over (upstream edits cuda.core's own capsule
// through ctypes) is written into JS memory and passed to fromDLPack as a pointer.
//
// Documented deviations from cuda.core tested as cumem documents them (utils README, "Exchange
// formats: DLPack and the CUDA Array Interface"): a view of JS memory has no DLPack export (a
// TypeError), where cuda.core exports NumPy memory as kDLCPU; `toDLPack()` without options is a
// versioned struct ([1, 0]; `{ maxVersion: [0, 8] }` asks for a legacy one), where cuda.core's
// `__dlpack__()` is unversioned; `from(obj)` without `stream` means the device's default stream,
// not an ambiguous None; `from(obj)` asks the producer once for a versioned struct and takes the
// struct it gets (a JS function does not reject an option it does not know, so there is no
// TypeError to retry on); the dtype and the device type are checked when the struct is imported
// (a TypeError, the struct stays the caller's), not when `.dtype` is read.
// test_dlpack_export_roundtrip_dtypes runs every cumem dtype, bfloat16 included (upstream's
// ml_dtypes probe has no counterpart: cumem's bfloat16 needs no extra package).
//
// Not ported:
// - the DLPack C exchange API cases (test_dlpack_c_exchange_api_header_version,
//   _current_work_stream, _current_work_stream_null_output, _dltensor_from_py_object,
//   _dltensor_from_py_object_type_error, _dltensor_from_py_object_null_output,
//   _dltensor_from_py_object_scalar, _managed_tensor_export_failure_sets_exception,
//   _dltensor_export_failure_sets_exception, _managed_tensor_roundtrip,
//   _managed_tensor_from_py_object_errors, _to_py_object_null_output, _to_py_object_null_tensor,
//   _import_failure_sets_exception, _to_py_object_device_accessible,
//   _managed_tensor_allocator_not_supported): a CPython capsule of C function pointers
//   (`__dlpack_c_exchange_api__`) that take and return Python objects; cumem has no such object.
import {
  type Buffer,
  collectReleasedExports,
  DeviceMemoryResource,
  LegacyPinnedMemoryResource,
  useDriver,
} from '@cumem/memory';
import { dlpackStruct } from '@cumem/memory/internal';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DTYPES, type DType, StridedLayout, StridedMemoryView } from '../../src/index.js';
import { produceDLPack } from '../dlpack-producer.js';
import { adapters, strictTypeError } from '../support.js';

const { DLDeviceType, DLPACK_FLAG_READ_ONLY, LegacyField, TensorField, VersionedField } = dlpackStruct;

describeEachDriver(adapters, 'cuda.core test_utils_dlpack.py', (entry) => {
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

  /** Pinned host memory holding `bytes` (upstream's NumPy array), closed after the file's cases. */
  function hostArray(bytes: Uint8Array): Buffer {
    const buffer = pinned.allocate(Math.max(bytes.byteLength, 1));
    opened.push(buffer);
    if (bytes.byteLength > 0) buffer.copyFrom(bytes);
    return buffer;
  }

  /** The bytes `view` sees, dense in C order (copied into pinned memory of the same dtype). */
  function bytesOf(view: StridedMemoryView): Uint8Array {
    const itemsize = DTYPES[view.dtype].itemsize;
    const target = pinned.allocate(view.layout.volume * itemsize);
    opened.push(target);
    const dense = StridedMemoryView.fromBuffer(target, StridedLayout.dense(view.shape, itemsize), {
      dtype: view.dtype,
    });
    view.copyTo(dense);
    const out = new Uint8Array(target.size);
    target.copyTo(out);
    return out;
  }

  /** The header of the struct at `pointer` (versioned or legacy), read before anyone consumes it. */
  function header(pointer: bigint, versioned: boolean): DataView {
    const size = versioned ? VersionedField.size : LegacyField.size;
    const bytes = entry.driver.readNativeMemory(pointer, size);
    return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  // The driver's release function marks a versioned struct by overwriting its major version.
  const released = (bytes: Uint8Array) =>
    new DataView(bytes.buffer).getUint32(VersionedField.major, true) !== 1;

  /** A pinned (2, 3) array of `dtype` with distinct bytes (bool: 0 and 1) and its view. */
  function sampleView(dtype: DType, shape: readonly number[]) {
    const itemsize = DTYPES[dtype].itemsize;
    const count = shape.reduce((product, extent) => product * extent, 1) * itemsize;
    const bytes = Uint8Array.from({ length: count }, (_, i) =>
      dtype === 'bool' ? i % 2 : (7 * i + 1) & 0xff,
    );
    const host = hostArray(bytes);
    const view = StridedMemoryView.fromBuffer(host, StridedLayout.dense(shape, itemsize), { dtype });
    return { bytes, host, view };
  }

  for (const dtype of Object.keys(DTYPES) as DType[]) {
    it(`test_dlpack_export_roundtrip_dtypes: ${dtype} (2, 3) keeps dtype, shape and values`, () => {
      const { bytes, view } = sampleView(dtype, [2, 3]);
      const out = StridedMemoryView.fromDLPack(view.toDLPack());
      expect(out.dtype).toBe(dtype);
      expect(out.shape).toEqual([2, 3]);
      expect(bytesOf(out)).toEqual(bytes);
      out.close();
    });
  }

  it('test_dlpack_export_roundtrip_special_shapes: scalar complex128 keeps its shape and value', () => {
    const { bytes, view } = sampleView('complex128', []);
    const out = StridedMemoryView.fromDLPack(view.toDLPack());
    expect([out.dtype, out.shape]).toEqual(['complex128', []]);
    expect(bytesOf(out)).toEqual(bytes);
    out.close();
  });

  it('test_dlpack_export_roundtrip_special_shapes: empty (0, 3) complex128 keeps its shape', () => {
    const host = hostArray(new Uint8Array(16));
    const view = StridedMemoryView.fromBuffer(host, StridedLayout.dense([0, 3], 16), { dtype: 'complex128' });
    const out = StridedMemoryView.fromDLPack(view.toDLPack());
    expect([out.dtype, out.shape, out.layout.volume]).toEqual(['complex128', [0, 3], 0]);
    out.close();
  });

  it('test_dlpack_export_array_interface_reports_cpu: a JS-memory view is host memory and has no export (cumem deviation); pinned memory exports as kDLCUDAHost', () => {
    const values = Int32Array.from({ length: 6 }, (_, i) => i);
    const jsView = StridedMemoryView.fromHost(values);
    expect(jsView.isDeviceAccessible).toBe(false);
    expect(jsView.deviceId).toBe(-1);
    expect(() => jsView.toDLPack()).toThrow(strictTypeError);

    const host = hostArray(new Uint8Array(values.buffer));
    const view = StridedMemoryView.fromBuffer(host, StridedLayout.dense([6], 4), { dtype: 'int32' });
    expect(view.deviceId).toBe(-1);
    const capsule = view.toDLPack();
    expect(header(capsule.pointer, true).getInt32(VersionedField.tensor + TensorField.deviceType, true)).toBe(
      DLDeviceType.CUDAHost,
    );
    const out = StridedMemoryView.fromDLPack(capsule);
    expect(new Int32Array(bytesOf(out).buffer)).toEqual(values);
    out.close();
  });

  it('test_dlpack_view_of_buffer_reuses_exporting_buffer: a view of a view of a Buffer names the Buffer', () => {
    const buffer = mr.allocate(16);
    opened.push(buffer);
    const view = StridedMemoryView.from(buffer, { stream: -1 });
    const adjusted = view.view(undefined, 'uint8');
    expect(adjusted.exportingObject).toBe(buffer);
    expect(adjusted.ptr).toBe(buffer.handle);
    adjusted.close();
    view.close();
  });

  it('test_dlpack_export_unversioned_capsule_and_deleter: maxVersion [0, 8] gives a legacy struct; close() releases it unconsumed', () => {
    const { view } = sampleView('int32', [6]);
    const capsule = view.toDLPack({ maxVersion: [0, 8] });
    expect(capsule.version).toEqual([0, 8]);
    const fields = header(capsule.pointer, false);
    expect(fields.getInt32(LegacyField.tensor + TensorField.ndim, true)).toBe(1);
    expect(fields.getBigUint64(LegacyField.tensor + TensorField.data, true)).toBe(view.ptr);
    // cuda.core's __dlpack__() without max_version is unversioned; cumem's default is versioned.
    const defaultCapsule = view.toDLPack();
    expect(defaultCapsule.version).toEqual([1, 0]);
    defaultCapsule.close();
    capsule.close();
    expect(capsule.isClosed).toBe(true);
    expect(collectReleasedExports()).toBe(0);
  });

  it('test_dlpack_export_versioned_capsule_and_deleter: maxVersion [1, 0] gives a versioned struct; close() releases it unconsumed', () => {
    const { view } = sampleView('int32', [6]);
    const capsule = view.toDLPack({ maxVersion: [1, 0] });
    expect(capsule.version).toEqual([1, 0]);
    const fields = header(capsule.pointer, true);
    expect(fields.getUint32(VersionedField.major, true)).toBe(1);
    expect(fields.getInt32(VersionedField.tensor + TensorField.ndim, true)).toBe(1);
    capsule.close();
    expect(capsule.isClosed).toBe(true);
    expect(collectReleasedExports()).toBe(0);
  });

  /** A producer like a NumPy / CuPy array: records what from() asks of its toDLPack. */
  function recordingProducer(view: StridedMemoryView, maxVersion?: readonly [number, number]) {
    const requests: Record<string, unknown>[] = [];
    return {
      requests,
      toDLPack(request: Record<string, unknown>) {
        requests.push(request);
        return view.toDLPack(maxVersion === undefined ? undefined : { maxVersion });
      },
    };
  }

  it('test_from_dlpack_cpu_stream_none_ambiguous: without a stream, a pinned producer is imported (cumem deviation: the default stream, not ambiguous)', () => {
    const { bytes, view } = sampleView('float32', [4]);
    const producer = recordingProducer(view);
    const out = StridedMemoryView.from(producer);
    expect(producer.requests).toHaveLength(1);
    expect(producer.requests[0]?.stream).toBeUndefined();
    expect(bytesOf(out)).toEqual(bytes);
    out.close();
  });

  it('test_from_dlpack_cuda_stream_none_ambiguous: without a stream, a device producer is imported (cumem deviation: the default stream, not ambiguous)', () => {
    const buffer = mr.allocate(16);
    opened.push(buffer);
    const source = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([4], 4), { dtype: 'float32' });
    const producer = recordingProducer(source);
    const out = StridedMemoryView.from(producer);
    expect(producer.requests).toHaveLength(1);
    expect(producer.requests[0]?.stream).toBeUndefined();
    expect([out.ptr, out.deviceId]).toEqual([buffer.handle, 0]);
    out.close();
  });

  it('test_from_dlpack_unsupported_device_type: a struct on kDLVulkan (7) is refused and stays the caller’s', () => {
    const buffer = mr.allocate(16);
    opened.push(buffer);
    const { bytes, pointer } = produceDLPack(entry.driver, {
      element: buffer.handle,
      shape: [4],
      dtype: DTYPES.int32.dlpack,
      deviceType: 7,
      deleter: entry.driver.nativeReleaseFunction(),
    });
    expect(() => StridedMemoryView.fromDLPack(pointer)).toThrow(strictTypeError);
    expect(() => StridedMemoryView.fromDLPack(pointer)).toThrow(/device type 7 is not one cumem maps/);
    expect(released(bytes)).toBe(false);
  });

  it('test_from_dlpack_typeerror_fallback_unversioned_import: a producer answering with a legacy struct is imported (asked once for [1, 0])', () => {
    const { bytes, view } = sampleView('int32', [6]);
    const producer = recordingProducer(view, [0, 8]);
    const out = StridedMemoryView.from(producer, { stream: -1 });
    expect(producer.requests).toHaveLength(1);
    expect(producer.requests[0]?.maxVersion).toEqual([1, 0]);
    expect(out.ptr).toBe(view.ptr);
    expect(bytesOf(out)).toEqual(bytes);
    out.close();
  });

  it('test_dlpack_versioned_readonly_export_and_import: the read-only flag is set on export and read on import', () => {
    const host = hostArray(new Uint8Array(new Int32Array([0, 1, 2, 3]).buffer));
    const base = StridedMemoryView.fromBuffer(host, StridedLayout.dense([4], 4), {
      dtype: 'int32',
      isReadonly: true,
    });
    const capsule = base.toDLPack({ maxVersion: [1, 0] });
    const flags = header(capsule.pointer, true).getBigUint64(VersionedField.flags, true);
    expect(flags & DLPACK_FLAG_READ_ONLY).toBe(DLPACK_FLAG_READ_ONLY);
    const imported = StridedMemoryView.fromDLPack(capsule);
    expect(imported.readonly).toBe(true);
    imported.close();
  });

  // (code, bits, lanes) no dtype has; cuda.core raises on `.dtype`, cumem on import (documented).
  const malformedDtypes = [
    { id: 'lanes', code: 0, bits: 32, lanes: 2 },
    { id: 'uint-bits', code: 1, bits: 24, lanes: 1 },
    { id: 'int-bits', code: 0, bits: 24, lanes: 1 },
    { id: 'float-bits', code: 2, bits: 8, lanes: 1 },
    { id: 'complex-bits', code: 5, bits: 32, lanes: 1 },
    { id: 'bool-bits', code: 6, bits: 1, lanes: 1 },
    { id: 'code', code: 255, bits: 8, lanes: 1 },
  ] as const;
  for (const { id, code, bits, lanes } of malformedDtypes) {
    it(`test_from_dlpack_malformed_dtype_rejected_on_access: ${id} (${code}, ${bits}, ${lanes}) is refused on import and the struct stays the caller’s`, () => {
      const buffer = mr.allocate(16);
      opened.push(buffer);
      const { bytes, pointer } = produceDLPack(entry.driver, {
        element: buffer.handle,
        shape: [4],
        dtype: { code, bits, lanes },
        deleter: entry.driver.nativeReleaseFunction(),
      });
      expect(() => StridedMemoryView.fromDLPack(pointer)).toThrow(strictTypeError);
      expect(() => StridedMemoryView.fromDLPack(pointer)).toThrow(
        new RegExp(
          `code (number )?${code}, bits (number )?${bits}, lanes (number )?${lanes}\\) has no matching cumem dtype`,
        ),
      );
      expect(released(bytes)).toBe(false);
    });
  }

  for (const versioned of [false, true]) {
    const id = versioned ? 'versioned' : 'unversioned';

    it(`test_from_dlpack_null_deleter_dealloc: ${id}: a struct without a deleter imports and closes`, () => {
      const buffer = mr.allocate(24);
      opened.push(buffer);
      const { bytes, pointer } = produceDLPack(entry.driver, {
        element: buffer.handle,
        shape: [6],
        dtype: DTYPES.int32.dlpack,
        versioned,
        deleter: 0n,
      });
      const view = StridedMemoryView.fromDLPack(pointer, { versioned });
      expect([view.ptr, view.shape, view.dtype]).toEqual([buffer.handle, [6], 'int32']);
      view.close();
      // Nothing was called at close: the producer's struct and memory are untouched and usable.
      expect(new DataView(bytes.buffer).getUint32(VersionedField.major, true)).toBe(
        versioned ? 1 : Number(buffer.handle & 0xffff_ffffn),
      );
      expect(() => buffer.fill(0)).not.toThrow();
    });

    it(`test_from_dlpack_honours_byte_offset: ${id}: the view starts at data + byte_offset`, () => {
      const values = Int32Array.from({ length: 9 }, (_, i) => i);
      const host = hostArray(new Uint8Array(values.buffer));
      // cumem's own export of the first 8 elements: data is the allocation start, offset 0.
      const first8 = StridedMemoryView.fromBuffer(host, StridedLayout.dense([8], 4), { dtype: 'int32' });
      const capsule = first8.toDLPack(versioned ? { maxVersion: [1, 0] } : { maxVersion: [0, 8] });
      const tensor = versioned ? VersionedField.tensor : LegacyField.tensor;
      const exported = header(capsule.pointer, versioned);
      expect(exported.getBigUint64(tensor + TensorField.data, true)).toBe(host.handle);
      expect(exported.getBigUint64(tensor + TensorField.byteOffset, true)).toBe(0n);
      capsule.close();

      // The same 8 elements described from element 1 through byte_offset (data stays the start).
      const words = new BigUint64Array(Math.ceil(dlpackStruct.dlpackStructSize(versioned, 1) / 8));
      const bytes = new Uint8Array(words.buffer);
      const pointer = entry.driver.addressOf(bytes);
      dlpackStruct.writeDLPackStruct(
        bytes,
        pointer,
        versioned,
        {
          data: host.handle,
          byteOffset: 4n,
          deviceType: DLDeviceType.CUDAHost,
          deviceId: 0,
          shape: [8],
          strides: [1],
          dtype: DTYPES.int32.dlpack,
          readonly: false,
        },
        0n,
      );
      const view = StridedMemoryView.fromDLPack(pointer, { versioned });
      expect(view.ptr).toBe(host.handle + 4n);
      expect(view.shape).toEqual([8]);
      expect([...new Int32Array(bytesOf(view).buffer)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      view.close();
    });
  }
});
