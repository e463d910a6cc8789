// Issue 22: a DLPack capsule consumed twice is a CudaStateError; memory a consumer holds stays
// allocated after the Buffer is closed in JS (on the hostile fake, freed memory would fault),
// and is freed once the consumer calls the deleter.
import { CudaStateError } from '@cumem/core-types';
import { StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(4096);
buffer.fill(7);
const capsule = buffer.toDLPack();
const pointer = capsule.consume();
expectThrows(CudaStateError, 'consume() twice', () => capsule.consume());
expectThrows(CudaStateError, 'fromDLPack(consumed capsule)', () => StridedMemoryView.fromDLPack(capsule));
capsule.close();
buffer.close();
// The consumer (cumem itself here) still reads the memory.
const consumer = StridedMemoryView.fromDLPack(pointer);
const host = new Uint8Array(4096);
consumer.copyTo(StridedMemoryView.fromHost(host), { blocking: true });
check(
  host.every((byte) => byte === 7),
  'the held memory kept its bytes after Buffer.close()',
);
consumer.close();
consumer.close();
check(memory.collectReleasedExports() === 0, 'the deleter released the export');
// An unconsumed capsule is released by close / GC, with its buffer already closed.
const second = mr.allocate(64);
const unconsumed = second.toDLPack({ maxVersion: [0, 8] });
second.close();
unconsumed.close();
for (let i = 0; i < 100; i++) mr.allocate(64).toDLPack();
globalThis.gc?.();
await new Promise((resolve) => setTimeout(resolve, 50));
globalThis.gc?.();
check(driver.name.length > 0, 'still running after collecting unconsumed capsules');
