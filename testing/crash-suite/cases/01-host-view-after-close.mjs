// Class 1: hostView() after close() is refused; a view taken before close() never reaches
// another allocation's bytes (N-API/reference detach it; FFI keeps the memory out of the pool).
// needs: hostMemoryPools
import { check, expectThrows, memory, scribbleAndCheck, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const buffer = mr.allocate(4096);
const view = buffer.hostView();
view.fill(1);
buffer.close();
expectThrows(memory.CudaStateError, 'hostView() after close()', () => buffer.hostView());
const others = [];
for (let i = 0; i < 4; i++) {
  const other = mr.allocate(4096);
  other.fill(0x11);
  others.push(other);
}
memory.defaultStream().sync();
scribbleAndCheck(view, others, 0x11, 'view kept past close()');
check(view.length === 0 || view.length === 4096, 'the stale view has its length or is detached');
for (const other of others) other.close();
mr.close();
