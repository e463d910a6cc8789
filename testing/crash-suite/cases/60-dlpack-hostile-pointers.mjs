// Issue 22: DLPack pointers that are null, unaligned or point at unmapped memory are typed
// errors (RangeError); cumem reads the struct with readNativeMemory, never by dereferencing.
import { StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, memoryInternal, setUp } from './support.mjs';

const { driver } = await setUp();
expectThrows(RangeError, 'fromDLPack(0n)', () => StridedMemoryView.fromDLPack(0n));
expectThrows(RangeError, 'fromDLPack(unaligned)', () => StridedMemoryView.fromDLPack(0x1003n));
// Below mmap_min_addr: never mapped in a Linux process.
for (const unmapped of [0x1000n, 0x8000n]) {
  expectThrows(RangeError, `fromDLPack(0x${unmapped.toString(16)})`, () =>
    StridedMemoryView.fromDLPack(unmapped),
  );
  expectThrows(RangeError, 'readNativeMemory(unmapped)', () => driver.readNativeMemory(unmapped, 80));
}
expectThrows(RangeError, 'fromDLPack(-8n)', () => StridedMemoryView.fromDLPack(-8n));
expectThrows(TypeError, 'fromDLPack("0x1000")', () => StridedMemoryView.fromDLPack('0x1000'));
expectThrows(TypeError, 'fromDLPack({})', () => StridedMemoryView.fromDLPack({}));
// A struct whose shape pointer dangles.
const buffer = new memory.DeviceMemoryResource(0).allocate(64);
const words = new BigUint64Array(16);
const bytes = new Uint8Array(words.buffer);
const pointer = driver.addressOf(bytes);
memoryInternal.dlpackStruct.writeDLPackStruct(
  bytes,
  pointer,
  true,
  {
    data: buffer.handle,
    byteOffset: 0n,
    deviceType: memoryInternal.dlpackStruct.DLDeviceType.CUDA,
    deviceId: 0,
    shape: [64],
    strides: [1],
    dtype: { code: 1, bits: 8, lanes: 1 },
    readonly: false,
  },
  driver.nativeReleaseFunction(),
);
const view = new DataView(words.buffer);
view.setBigUint64(
  memoryInternal.dlpackStruct.VersionedField.tensor + memoryInternal.dlpackStruct.TensorField.shape,
  0x1000n,
  true,
);
expectThrows(RangeError, 'a shape pointer into unmapped memory', () => StridedMemoryView.fromDLPack(pointer));
view.setBigUint64(
  memoryInternal.dlpackStruct.VersionedField.tensor + memoryInternal.dlpackStruct.TensorField.shape,
  0n,
  true,
);
expectThrows(RangeError, 'a null shape pointer', () => StridedMemoryView.fromDLPack(pointer));
check(view.getUint32(0, true) === 1, "a refused struct stays the caller's (its deleter did not run)");
buffer.close();
