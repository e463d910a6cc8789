// Issue 26: the 'auto' batch strategy times its first calls with events on the caller's stream
// and reads them on later calls. Nothing of that may outlive what it times badly: streams
// closed while a timed call is pending, buffers closed between learning calls, batches that
// mix memories (the per-memory checks of copyBatch) and the diagnostic on a closed stream.
// Every copy, whichever form the learning picked for it, lands byte for byte.
import { CudaStateError } from '@cumem/core-types';
import { copyBatch, learnedBatchStrategies, prefetchBatch } from '@cumem/utils';
import { check, collectGarbage, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const device = new memory.Device(0);
const host = new memory.Host();
const managed = new memory.ManagedMemoryResource();
const ranges = Array.from({ length: 32 }, () => managed.allocate(4096));

// Timed calls on streams closed (and collected) before their events were read.
for (let i = 0; i < 8; i++) {
  const stream = memory.Stream.create(0);
  prefetchBatch(stream, ranges, i % 2 === 0 ? device : host, { coalesce: false });
  stream.close();
}
await collectGarbage();
const stream = memory.Stream.create(0);
for (let i = 0; i < 8; i++) prefetchBatch(stream, ranges, i % 2 === 0 ? device : host);
stream.sync();

// A buffer closed between learning calls is refused before any driver call.
ranges[5].close();
expectThrows(CudaStateError, 'prefetchBatch with a closed range', () =>
  prefetchBatch(stream, ranges, device),
);
ranges[5] = managed.allocate(4096);

// copyBatch over interleaved memories of two resources, learning both forms on the way.
const first = new memory.DeviceMemoryResource(0);
const second = new memory.DeviceMemoryResource(0, {});
const sources = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? first : second).allocate(256));
const targets = Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? second : first).allocate(256));
const bytes = new Uint8Array(256);
for (let round = 0; round < 8; round++) {
  for (const [i, source] of sources.entries()) source.fill((round * 64 + i) & 0xff, { stream });
  copyBatch(stream, targets, sources, undefined);
  stream.sync();
  targets.forEach((target, i) => {
    target.copyTo(bytes);
    check(
      bytes.every((byte) => byte === ((round * 64 + i) & 0xff)),
      `copyBatch round ${round}: copy ${i} lost its bytes`,
    );
  });
}

expectThrows(TypeError, 'learnedBatchStrategies(not a stream)', () => learnedBatchStrategies({ handle: 1n }));
const closed = memory.Stream.create(0);
closed.close();
check(Array.isArray(learnedBatchStrategies(closed)), 'learnedBatchStrategies of a closed stream is an array');
check(Array.isArray(learnedBatchStrategies(stream)), 'learnedBatchStrategies is an array');

for (const buffer of [...ranges, ...sources, ...targets]) buffer.close();
stream.close();
