// Class 10: accessedBy = [device, Host({ numaId: 0 })] is a TypeError and changes nothing.
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const buffer = new memory.ManagedMemoryResource().allocate(4096);
buffer.accessedBy = [new memory.Device(0)];
const before = JSON.stringify([...buffer.accessedBy]);
expectThrows(TypeError, 'accessedBy = [device, Host({ numaId: 0 })]', () => {
  buffer.accessedBy = [new memory.Device(1 % memory.deviceCount()), new memory.Host({ numaId: 0 })];
});
const after = JSON.stringify([...buffer.accessedBy]);
check(before === after, `accessedBy changed from ${before} to ${after}`);
buffer.close();
