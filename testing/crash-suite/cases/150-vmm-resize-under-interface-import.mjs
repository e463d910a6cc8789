// Issue 45, resizing under live exports: a view of a CUDA Array Interface (StridedMemoryView.from)
// reads its bytes by address. While it lives, a shrink of the VMM buffer past those bytes and a
// grow that moves the buffer are refused (CudaStateError naming the import) and the bytes stay
// intact; a shrink that keeps them is allowed; after the view is closed, or once every view of
// an import is collected, the shrink goes through.
import { StridedMemoryView } from '@cumem/utils';
import { check, checkRoundTrip, collectGarbage, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.VirtualMemoryResource(0, { reserveSize: 0 });
const g = mr.granularity;
const buffer = mr.allocate(4 * g);
buffer.fill(0x21);
// The second granule, as another library would describe it.
const interfaceOf = (address, bytes) => ({
  cudaArrayInterface: { shape: [bytes], typestr: '|u1', data: [address, false], strides: null, version: 3 },
});
const view = StridedMemoryView.from(interfaceOf(buffer.handle + BigInt(g), g), { stream: -1 });
const refused = expectThrows(memory.CudaStateError, 'a shrink past a live interface import', () =>
  mr.modifyAllocation(buffer, g),
);
check(
  /CUDA Array Interface import/.test(refused.message),
  `the refusal names the import: ${refused.message}`,
);
check(buffer.size === 4 * g, 'a refused shrink leaves the size');
let grown;
try {
  grown = mr.modifyAllocation(buffer, 64 * g);
} catch (error) {
  check(error instanceof memory.CudaStateError, `a moving grow under the import: ${error}`);
  check(/CUDA Array Interface import/.test(error.message), `the refusal names the import: ${error.message}`);
}
const live = grown === undefined ? buffer : grown.buffer;
check(grown === undefined || !grown.moved, 'a grow under a live import never moves the buffer');
const back = new Uint8Array(g);
view.copyTo(StridedMemoryView.fromHost(back));
check(
  back.every((byte) => byte === 0x21),
  'the imported bytes are intact after the refusals',
);
mr.modifyAllocation(live, 2 * g); // keeps the imported bytes: allowed
check(live.size === 2 * g, 'a shrink that keeps the imported bytes goes through');
view.close();
view.close();
mr.modifyAllocation(live, g);
check(live.size === g, 'the shrink goes through once the view is closed');

// An import whose views are all dropped: its hold goes with them.
mr.modifyAllocation(live, 2 * g);
(() => {
  StridedMemoryView.from(interfaceOf(live.handle, 2 * g), { stream: -1 }).view();
})();
expectThrows(memory.CudaStateError, 'a shrink under a dropped but uncollected import', () =>
  mr.modifyAllocation(live, g),
);
let shrunk = false;
for (let round = 0; round < 20 && !shrunk; round++) {
  await collectGarbage();
  try {
    mr.modifyAllocation(live, g);
    shrunk = true;
  } catch (error) {
    check(error instanceof memory.CudaStateError, `only the hold refuses: ${error}`);
  }
}
check(shrunk, 'the shrink goes through once every view of the import is collected');
checkRoundTrip(live, 0x33, 'the shrunk buffer still holds its memory');
live.close();
mr.close();
