// Class 1: a ManagedBuffer's view after close() never reaches another allocation.
import { expectThrows, memory, scribbleAndCheck, setUp } from './support.mjs';

await setUp();
const mr = new memory.ManagedMemoryResource();
const buffer = mr.allocate(4096);
const view = buffer.hostView();
buffer.close();
expectThrows(memory.CudaStateError, 'ManagedBuffer.hostView() after close()', () => buffer.hostView());
const others = [];
for (let i = 0; i < 4; i++) {
  const other = mr.allocate(4096);
  other.fill(0x55);
  others.push(other);
}
memory.defaultStream().sync();
scribbleAndCheck(view, others, 0x55, 'managed view kept past close()');
for (const other of others) other.close();
