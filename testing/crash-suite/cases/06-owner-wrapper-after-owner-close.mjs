// Class 1/2: Buffer.fromHandle(p, n, { owner }) follows its owner: closed with it, hostView
// refused, and its earlier view never reaches another allocation.
// needs: hostMemoryPools
import { check, expectThrows, memory, scribbleAndCheck, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const owner = mr.allocate(4096);
const wrapper = memory.Buffer.fromHandle(owner.handle, 4096, { owner });
const view = wrapper.hostView();
owner.close();
check(wrapper.isClosed, 'an { owner } wrapper is closed once its owner is');
expectThrows(memory.CudaStateError, 'wrapper.hostView() after the owner closed', () => wrapper.hostView());
const other = mr.allocate(4096);
other.fill(0x66);
memory.defaultStream().sync();
scribbleAndCheck(view, [other], 0x66, 'view of an { owner } wrapper');
other.close();
