// Class 4: memory that a live Buffer owns cannot get a second owner: mr.deallocate(p) and
// Buffer.fromHandle(p, n, { mr }) are refused, and the Buffer still closes cleanly.
import { checkRoundTrip, expectRefused, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(4096);
expectRefused("mr.deallocate() of a live Buffer's pointer", () => mr.deallocate(buffer.handle, buffer.size));
expectRefused("Buffer.fromHandle(p, n, { mr }) of a live Buffer's pointer", () =>
  memory.Buffer.fromHandle(buffer.handle, buffer.size, { mr }),
);
checkRoundTrip(buffer, 7, 'the live buffer still owns its memory');
buffer.close();
memory.defaultStream().sync();
