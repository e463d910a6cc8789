// Class 3: Buffer.fromHandle with a size past the end of the allocation is a RangeError.
import { expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(4096);
expectThrows(RangeError, 'fromHandle(ptr, 1 MiB) over a 4 KiB allocation', () =>
  memory.Buffer.fromHandle(buffer.handle, 1 << 20),
);
expectThrows(RangeError, 'fromHandle(ptr + 4000, 200) past the end', () =>
  memory.Buffer.fromHandle(buffer.handle + 4000n, 200),
);
buffer.close();
