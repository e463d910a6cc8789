// Issue 45, item 2: StridedMemoryView.from(buffer, { stream }) views the Buffer directly and
// orders the consumer stream after the stream the memory was allocated on (an event recorded
// there, waited on by the consumer), as toDLPack does: no DLPack struct in between, no CPU
// wait. Hostile programs: the consumer closed first, the buffer closed before and after,
// thousands of views with nothing left to release, bad stream options refused before the driver.
import { CudaStateError } from '@cumem/core-types';
import { StridedMemoryView } from '@cumem/utils';
import { check, collectGarbage, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const producer = memory.Stream.create(0);
const consumer = memory.Stream.create(0);
const size = 64 << 20;
const a = mr.allocate(size, { stream: producer });
const b = mr.allocate(size, { stream: producer });
const target = mr.allocate(4096, { stream: producer });
target.fill(1, { stream: producer });
for (let round = 0; round < 8; round++) {
  b.copyFrom(a, { stream: producer });
  a.copyFrom(b, { stream: producer });
}
// The final bytes, last on the producer's stream; the consumer must see them.
target.fill(9, { stream: producer });
const view = StridedMemoryView.from(target, { stream: consumer });
check(view.exportingObject === target, 'the view keeps the Buffer itself as its exporting object');
check(view.shape[0] === 4096 && view.dtype === 'uint8', 'the view shows every byte as uint8');
const host = new Uint8Array(4096);
view.copyTo(StridedMemoryView.fromHost(host), { stream: consumer });
consumer.sync();
check(
  host.every((byte) => byte === 9),
  'the consumer read the final bytes: it was ordered after the producer',
);

// Many views, nothing exported to release afterwards.
for (let i = 0; i < 2000; i++) StridedMemoryView.from(target, { stream: i % 2 === 0 ? consumer : -1 });
await collectGarbage();
check(memory.collectReleasedExports() === 0, 'no DLPack export is left behind by from(buffer)');

for (const bad of [0, 1n, 'stream', {}, Object.create(consumer), new Proxy(consumer, {})]) {
  expectThrows(TypeError, `from(buffer, { stream: ${typeof bad} })`, () =>
    StridedMemoryView.from(target, { stream: bad }),
  );
}
const closedConsumer = memory.Stream.create(0);
closedConsumer.close();
expectThrows(CudaStateError, 'from(buffer) with a closed consumer stream', () =>
  StridedMemoryView.from(target, { stream: closedConsumer }),
);
producer.sync();
const closedBuffer = mr.allocate(64);
closedBuffer.close();
expectThrows(CudaStateError, 'from(closed buffer)', () =>
  StridedMemoryView.from(closedBuffer, { stream: consumer }),
);
// A view of a buffer closed afterwards refuses work.
const later = mr.allocate(64);
const laterView = StridedMemoryView.from(later, { stream: -1 });
later.close();
expectThrows(CudaStateError, 'copy from a view of a closed buffer', () =>
  laterView.copyTo(StridedMemoryView.fromHost(new Uint8Array(64))),
);
// The producer closed with work still queued: the consumer is still ordered after that work.
const closingProducer = memory.Stream.create(0);
const late = mr.allocate(4096, { stream: closingProducer });
late.fill(1, { stream: closingProducer });
for (let round = 0; round < 8; round++) {
  b.copyFrom(a, { stream: closingProducer });
  a.copyFrom(b, { stream: closingProducer });
}
late.fill(7, { stream: closingProducer });
closingProducer.close();
const lateHost = new Uint8Array(4096);
StridedMemoryView.from(late, { stream: consumer }).copyTo(StridedMemoryView.fromHost(lateHost), {
  stream: consumer,
});
consumer.sync();
check(
  lateHost.every((byte) => byte === 7),
  'the consumer read the final bytes of a producer closed with work queued',
);
late.close({ stream: consumer });
for (const buffer of [a, b, target]) buffer.close({ stream: consumer });
producer.close();
consumer.close();
