// Class 1: a ManagedBuffer's view after close() never reaches another allocation.
import { checkStaleViews, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.ManagedMemoryResource();
const buffer = mr.allocate(4096);
const view = buffer.hostView();
buffer.close();
expectThrows(memory.CudaStateError, 'ManagedBuffer.hostView() after close()', () => buffer.hostView());
checkStaleViews([view], mr, { count: 4, size: 4096, byte: 0x55, what: 'managed view kept past close()' });
