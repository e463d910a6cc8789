// Class 1: a view of a Buffer that was garbage-collected while the view is still referenced:
// writing through it must not change a new allocation's bytes (the view keeps its memory alive).
// needs: hostMemoryPools
import { checkStaleViews, collectGarbage, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const views = [];
(() => {
  for (let i = 0; i < 8; i++) views.push(mr.allocate(4096).hostView());
})();
await collectGarbage();
checkStaleViews(views, mr, { count: 8, size: 4096, byte: 0x22, what: 'view of a collected buffer' });
