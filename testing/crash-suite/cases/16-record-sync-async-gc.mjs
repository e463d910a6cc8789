// Class 5: `await stream.record().syncAsync()` under GC pressure: the event object is dropped
// while its wait is in flight. The safe outcome: every wait resolves, and only after the work
// recorded before its event (a fill read back through the pinned buffer's host view without
// any other synchronisation).
import { check, collectGarbage, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const mr = new memory.LegacyPinnedMemoryResource();
const buffer = mr.allocate(1 << 20, { stream });
const view = buffer.hostView();
for (let i = 0; i < 200; i++) {
  const byte = i & 0xff;
  buffer.fill(byte, { stream });
  const pending = stream.record().syncAsync();
  if (i % 10 === 0) globalThis.gc();
  await pending;
  check(
    view[0] === byte && view[view.length - 1] === byte,
    `wait ${i} resolved before the fill recorded before it`,
  );
}
await collectGarbage();
buffer.close({ stream });
stream.close();
mr.close();
