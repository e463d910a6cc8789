// VirtualMemoryResource: buffers dropped without close (grown, shrunk, moved) are released by
// the finalizer after the resource closed, with no crash and no double free.
import { check, collectGarbage, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.VirtualMemoryResource(0, { reserveSize: 0 });
const g = mr.granularity;
mr.enableStatistics();
(() => {
  const a = mr.allocate(g);
  mr.modifyAllocation(a, 3 * g);
  const b = mr.allocate(2 * g);
  mr.modifyAllocation(b, g);
  const c = mr.allocate(g);
  mr.allocate(g);
  mr.modifyAllocation(c, 8 * g);
})();
mr.close();
await collectGarbage(8);
check(
  mr.statistics().bytes.current === 0,
  `all memory released, ${mr.statistics().bytes.current} bytes left`,
);
