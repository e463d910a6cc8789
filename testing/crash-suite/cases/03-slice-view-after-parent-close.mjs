// Class 1/2: a slice follows its parent: closed with it, hostView refused, and a view taken
// through the slice never reaches another allocation.
// needs: hostMemoryPools
import { check, checkStaleViews, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const parent = mr.allocate(8192);
const slice = parent.slice(4096, 4096);
const view = slice.hostView();
parent.close();
check(slice.isClosed, 'a slice is closed once its parent is');
expectThrows(memory.CudaStateError, 'slice.hostView() after the parent closed', () => slice.hostView());
checkStaleViews([view], mr, {
  count: 1,
  size: 8192,
  byte: 0x33,
  what: 'view through a slice of a closed parent',
});
