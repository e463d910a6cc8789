// Class 5: `await stream.record().syncAsync()` under GC pressure: the event object is dropped
// while its wait is in flight.
import { collectGarbage, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
for (let i = 0; i < 200; i++) {
  const pending = stream.record().syncAsync();
  if (i % 10 === 0) globalThis.gc();
  await pending;
}
await collectGarbage();
stream.close();
