// Class 9: thousands of streams and events created, closed or dropped: open file descriptors
// stay bounded.
import { readdirSync } from 'node:fs';
import { check, collectGarbage, memory, setUp } from './support.mjs';

await setUp();
const openDescriptors = () => readdirSync('/proc/self/fd').length;
memory.Stream.create(0).close(); // the first use opens what the driver keeps open
const before = openDescriptors();
for (let i = 0; i < 3000; i++) {
  const stream = memory.Stream.create(0);
  const event = stream.record();
  if (i % 2 === 0) {
    event.close();
    stream.close();
  }
  if (i % 500 === 0) await collectGarbage(1);
}
await collectGarbage();
const after = openDescriptors();
check(after - before < 64, `open descriptors grew from ${before} to ${after}`);
