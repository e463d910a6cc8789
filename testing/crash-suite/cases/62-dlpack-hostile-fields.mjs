// Issue 22: hostile DLPack fields are typed errors and leave the struct to the caller: unknown
// dtype codes and device types, ndim over 32 or negative, negative strides reaching before the
// allocation, shapes past 2**53 or the allocation. A null deleter is valid (nothing to call).
// Native producers cannot throw from a deleter, so there is no "throwing deleter" case here.
import { NotSupportedError } from '@cumem/core-types';
import { StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, memoryInternal, setUp } from './support.mjs';

const { driver } = await setUp();
const buffer = new memory.DeviceMemoryResource(0).allocate(64);
const kept = [];
function struct(fields, deleter = driver.nativeReleaseFunction()) {
  const shape = fields.shape ?? [64];
  const words = new BigUint64Array(10 + 2 * shape.length);
  const bytes = new Uint8Array(words.buffer);
  const pointer = driver.addressOf(bytes);
  memoryInternal.dlpackStruct.writeDLPackStruct(
    bytes,
    pointer,
    true,
    {
      data: buffer.handle,
      byteOffset: 0n,
      deviceType: 2,
      deviceId: 0,
      strides: shape.map(() => 1),
      dtype: { code: 1, bits: 8, lanes: 1 },
      readonly: false,
      ...fields,
      shape,
    },
    deleter,
  );
  kept.push(bytes);
  return { pointer, view: new DataView(words.buffer) };
}
const refused = [
  [TypeError, 'dtype code 77', { dtype: { code: 77, bits: 8, lanes: 1 } }],
  [TypeError, 'float8', { dtype: { code: 2, bits: 8, lanes: 1 } }],
  [TypeError, 'device type 4 (OpenCL)', { deviceType: 4 }],
  [TypeError, 'device type -1', { deviceType: -1 }],
  [TypeError, 'kDLCUDAManaged for device memory', { deviceType: 13 }],
  [RangeError, 'negative stride before the allocation', { shape: [8], strides: [-1] }],
  [RangeError, 'shape past the allocation', { shape: [65] }],
  [RangeError, 'extent past 2**53', { shape: [2 ** 30, 2 ** 30, 2 ** 30] }],
];
for (const [Type, what, fields] of refused) {
  const { pointer, view } = struct(fields);
  expectThrows(Type, what, () => StridedMemoryView.fromDLPack(pointer));
  check(view.getUint32(0, true) === 1, `${what}: the deleter did not run`);
}
const negativeNdim = struct({});
negativeNdim.view.setInt32(
  memoryInternal.dlpackStruct.VersionedField.tensor + memoryInternal.dlpackStruct.TensorField.ndim,
  -5,
  true,
);
expectThrows(RangeError, 'ndim -5', () => StridedMemoryView.fromDLPack(negativeNdim.pointer));
negativeNdim.view.setInt32(
  memoryInternal.dlpackStruct.VersionedField.tensor + memoryInternal.dlpackStruct.TensorField.ndim,
  33,
  true,
);
expectThrows(RangeError, 'ndim 33', () => StridedMemoryView.fromDLPack(negativeNdim.pointer));
const hugeShape = struct({});
hugeShape.view.setBigInt64(80, 2n ** 62n, true);
expectThrows(RangeError, 'shape 2**62', () => StridedMemoryView.fromDLPack(hugeShape.pointer));
const major = struct({});
major.view.setUint32(0, 9, true);
expectThrows(NotSupportedError, 'DLPack major 9', () => StridedMemoryView.fromDLPack(major.pointer));
// Valid edge cases: ndim 0 and a null deleter.
const scalar = struct({ shape: [] }, 0n);
const view = StridedMemoryView.fromDLPack(scalar.pointer);
check(view.shape.length === 0, 'ndim 0 is a scalar view');
view.close();
buffer.close();
