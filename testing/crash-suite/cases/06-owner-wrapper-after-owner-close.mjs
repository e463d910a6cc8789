// Class 1/2: Buffer.fromHandle(p, n, { owner }) follows its owner: closed with it, hostView
// refused, and its earlier view never reaches another allocation.
// needs: hostMemoryPools
import { check, checkStaleViews, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.PinnedMemoryResource();
const owner = mr.allocate(4096);
const wrapper = memory.Buffer.fromHandle(owner.handle, 4096, { owner });
const view = wrapper.hostView();
owner.close();
check(wrapper.isClosed, 'an { owner } wrapper is closed once its owner is');
expectThrows(memory.CudaStateError, 'wrapper.hostView() after the owner closed', () => wrapper.hostView());
checkStaleViews([view], mr, { count: 1, size: 4096, byte: 0x66, what: 'view of an { owner } wrapper' });
