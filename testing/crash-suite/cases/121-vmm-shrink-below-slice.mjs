// VirtualMemoryResource: a shrink below an open slice is refused (the slice keeps working); once
// the slice is closed the shrink unmaps the tail, and nothing reaches the unmapped bytes.
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.VirtualMemoryResource(0, { reserveSize: 0 });
const g = mr.granularity;
// Grown in place or moved, depending on the driver: the returned buffer is the one to use.
const { buffer } = mr.modifyAllocation(mr.allocate(g), 4 * g);
const tail = buffer.slice(3 * g, 64);
tail.fill(0x5a);
expectThrows(memory.CudaStateError, 'shrink below an open slice', () => mr.modifyAllocation(buffer, g));
check(buffer.size === 4 * g, 'a refused shrink leaves the size');
const back = new Uint8Array(64);
tail.copyTo(back);
check(
  back.every((byte) => byte === 0x5a),
  'the slice still reads its bytes after the refusal',
);
tail.close();
mr.modifyAllocation(buffer, g);
check(buffer.size === g, 'the shrink went through once the slice was closed');
expectThrows(RangeError, 'a slice past the new end', () => buffer.slice(2 * g, 8));
expectThrows(RangeError, 'a copy past the new end', () => buffer.copyFrom(new Uint8Array(2 * g)));
buffer.close();
mr.close();
