// Class 1: a view of a Buffer that was garbage-collected while the view is still referenced:
// writing through it must not change a new allocation's bytes (the view keeps its memory alive).
// needs: hostMemoryPools
import { collectGarbage, memory, scribbleAndCheck, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const views = [];
(() => {
  for (let i = 0; i < 8; i++) views.push(mr.allocate(4096).hostView());
})();
await collectGarbage();
const others = [];
for (let i = 0; i < 8; i++) {
  const other = mr.allocate(4096);
  other.fill(0x22);
  others.push(other);
}
memory.defaultStream().sync();
for (const view of views) scribbleAndCheck(view, others, 0x22, 'view of a collected buffer');
for (const other of others) other.close();
