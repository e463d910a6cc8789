// VirtualMemoryResource: when a grow remaps the chunks to a new range, the old buffer and its
// slices are closed; using them is refused (on the hostile fake the old range is PROT_NONE, so
// any access that got through would fault).
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.VirtualMemoryResource(0);
const g = mr.granularity;
const buffer = mr.allocate(g);
const neighbour = mr.allocate(g);
const slice = buffer.slice(0, 16);
let moved = false;
let current = buffer;
// Grow until the driver cannot extend in place (it always can't for long with a neighbour).
for (let size = 2 * g; size <= 16 * g && !moved; size += g) {
  const result = mr.modifyAllocation(current, size);
  moved = result.moved;
  current = result.buffer;
}
if (moved) {
  check(buffer.isClosed && slice.isClosed, 'the moved buffer and its slice are closed');
  expectThrows(memory.CudaStateError, 'copy into the old buffer', () => buffer.copyFrom(new Uint8Array(16)));
  expectThrows(memory.CudaStateError, 'copy out of the old slice', () => slice.copyTo(new Uint8Array(16)));
  expectThrows(memory.CudaStateError, 'fill of the old slice', () => slice.fill(1));
  expectThrows(memory.CudaStateError, 'grow of the old buffer', () => mr.modifyAllocation(buffer, g));
} else {
  check(!slice.isClosed, 'a buffer grown in place keeps its slices');
}
current.fill(7);
const back = new Uint8Array(current.size);
current.copyTo(back);
check(
  back.every((byte) => byte === 7),
  'the grown buffer reads what was written',
);
current.close();
neighbour.close();
mr.close();
