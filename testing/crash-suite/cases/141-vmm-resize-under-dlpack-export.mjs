// Issue 45, resizing under live exports: a DLPack consumer holds the buffer's bytes by address.
// A shrink past the exported tensor and a grow that moves the buffer are refused (CudaStateError,
// naming the export) while the export is live; the buffer keeps its bytes; once the capsule is
// closed both go through. A shrink that keeps the exported bytes is allowed.
import { check, checkRoundTrip, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.VirtualMemoryResource(0, { reserveSize: 0 });
const g = mr.granularity;
const { buffer } = mr.modifyAllocation(mr.allocate(g), 4 * g);
// The second granule: past a shrink to one granule, within a shrink to two.
const exported = buffer.slice(g, g);
exported.fill(0x21);
const capsule = exported.toDLPack();
exported.close();
const refused = expectThrows(memory.CudaStateError, 'a shrink past a live export', () =>
  mr.modifyAllocation(buffer, g),
);
check(/DLPack export/.test(refused.message), `the refusal names the export: ${refused.message}`);
check(buffer.size === 4 * g, 'a refused shrink leaves the size');
// With reserveSize 0 there is no room after the range: a grow may have to move the buffer.
let grown;
try {
  grown = mr.modifyAllocation(buffer, 64 * g);
} catch (error) {
  check(error instanceof memory.CudaStateError, `a moving grow under the export: ${error}`);
  check(/DLPack export/.test(error.message), `the refusal names the export: ${error.message}`);
}
const live = grown === undefined ? buffer : grown.buffer;
check(grown === undefined || !grown.moved, 'a grow under a live export never moves the buffer');
const back = new Uint8Array(g);
const view = live.slice(g, g);
view.copyTo(back);
view.close();
check(
  back.every((byte) => byte === 0x21),
  'the exported bytes are intact after the refusals',
);
mr.modifyAllocation(live, 2 * g); // keeps the exported bytes: allowed
check(live.size === 2 * g, 'a shrink that keeps the exported bytes goes through');
capsule.close();
mr.modifyAllocation(live, g);
check(live.size === g, 'the shrink goes through once the capsule is closed');
checkRoundTrip(live, 0x33, 'the shrunk buffer still holds its memory');
live.close();
mr.close();
