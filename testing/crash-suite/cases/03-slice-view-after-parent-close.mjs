// Class 1/2: a slice follows its parent: closed with it, hostView refused, and a view taken
// through the slice never reaches another allocation.
// needs: hostMemoryPools
import { check, expectThrows, memory, scribbleAndCheck, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const parent = mr.allocate(8192);
const slice = parent.slice(4096, 4096);
const view = slice.hostView();
parent.close();
check(slice.isClosed, 'a slice is closed once its parent is');
expectThrows(memory.CudaStateError, 'slice.hostView() after the parent closed', () => slice.hostView());
const other = mr.allocate(8192);
other.fill(0x33);
memory.defaultStream().sync();
scribbleAndCheck(view, [other], 0x33, 'view through a slice of a closed parent');
other.close();
