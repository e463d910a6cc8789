// Issue 45, DLPack facts: a read-only DLPack import must not hand out a writable Buffer over
// the imported memory. The view's exportingObject is its producer (the capsule, the pointer or
// the object whose toDLPack made it), as cuda.core's exporting_obj; writes through the view
// are refused, and the exporter's bytes stay as they were.
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(256);
buffer.fill(0x5a);
const readonly = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([256], 1), { isReadonly: true });
const capsule = readonly.toDLPack();
const imported = StridedMemoryView.fromDLPack(capsule);
check(imported.readonly, 'the import is read-only');
check(imported.exportingObject === capsule, 'the exporting object is the capsule');
check(!memory.bufferBrand.has(imported.exportingObject), 'no Buffer over the imported memory is exposed');
check(!memory.bufferBrand.has(imported.view().exportingObject), 'nor through a derived view');
const zeros = StridedMemoryView.fromHost(new Uint8Array(256));
expectThrows(TypeError, 'a write through the read-only import', () => imported.copyFrom(zeros));
const producer = { toDLPack: (request) => readonly.toDLPack(request) };
const viaProducer = StridedMemoryView.from(producer, { stream: -1 });
check(viaProducer.exportingObject === producer, 'from(producer): the producer is the exporting object');
expectThrows(TypeError, 'a write through the producer import', () => viaProducer.copyFrom(zeros));
viaProducer.close();
imported.close();
const back = new Uint8Array(256);
buffer.copyTo(back);
check(
  back.every((byte) => byte === 0x5a),
  "the exporter's bytes are unchanged",
);
buffer.close();
mr.close();
