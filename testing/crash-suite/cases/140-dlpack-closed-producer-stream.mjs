// Issue 45, stream-closed ordering: a buffer allocated and filled on stream A, A closed while the
// fills are still queued, then exported with `toDLPack({ stream: B })`. Ordering must not depend
// on A still being open: B (the consumer) waits for A's queued work, so after B's sync every
// byte is the last fill's. Read through the pinned buffer's host view, with no other wait.
// needs: hostMemoryPools
import { check, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource({});
const size = 64 << 20;
for (let round = 0; round < 3; round++) {
  const producer = memory.Stream.create(0);
  const consumer = memory.Stream.create(0);
  const buffer = mr.allocate(size, { stream: producer });
  // Enough queued work that the close comes long before it is done on a GPU.
  for (let pass = 0; pass < 16; pass++) buffer.fill((round * 16 + pass) & 0xff, { stream: producer });
  const last = (round * 16 + 15) & 0xff;
  producer.close();
  const capsule = buffer.toDLPack({ stream: consumer });
  consumer.sync();
  const view = buffer.hostView();
  let stale = 0;
  for (let offset = 0; offset < size; offset += 4096) if (view[offset] !== last) stale++;
  check(
    stale === 0 && view[size - 1] === last,
    `round ${round}: ${stale} pages stale after the consumer's sync`,
  );
  capsule.close();
  buffer.close({ stream: consumer });
  consumer.close();
}
mr.close();
