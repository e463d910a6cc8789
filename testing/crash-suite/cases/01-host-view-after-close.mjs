// Class 1: hostView() after close() is refused; a view taken before close() never reaches
// another allocation's bytes (N-API/reference detach it; FFI keeps the memory out of the pool).
// needs: hostMemoryPools
import { check, checkStaleViews, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const buffer = mr.allocate(4096);
const view = buffer.hostView();
view.fill(1);
buffer.close();
expectThrows(memory.CudaStateError, 'hostView() after close()', () => buffer.hostView());
checkStaleViews([view], mr, { count: 4, size: 4096, byte: 0x11, what: 'view kept past close()' });
check(view.length === 0 || view.length === 4096, 'the stale view has its length or is detached');
mr.close();
