// Class 3/4: an IPC descriptor claiming more bytes than were exported is a RangeError in the
// importing process; the same descriptor imported twice, both closed, is fine.
// needs: interprocess, processes
import { fileURLToPath } from 'node:url';
import { check, expectThrows, memory, readRequest, runChild, setUp } from './support.mjs';

await setUp();
if (process.argv[2] === 'child') {
  const { descriptor } = await readRequest();
  const handle = memory.IpcAllocationHandle.fromFileDescriptor(3);
  const mr = memory.DeviceMemoryResource.fromAllocationHandle(0, handle);
  expectThrows(RangeError, 'fromIpcDescriptor with a size larger than exported', () =>
    memory.Buffer.fromIpcDescriptor(mr, { ...descriptor, size: descriptor.size * 1024 }),
  );
  const first = memory.Buffer.fromIpcDescriptor(mr, descriptor);
  const second = memory.Buffer.fromIpcDescriptor(mr, descriptor);
  check(
    first.size === descriptor.size && second.size === descriptor.size,
    'both imports have the exported size',
  );
  first.close();
  second.close();
  memory.defaultStream().sync();
  mr.close();
} else {
  const mr = new memory.DeviceMemoryResource(0, { ipcEnabled: true });
  const buffer = mr.allocate(65536);
  const handle = mr.getAllocationHandle();
  await runChild(fileURLToPath(import.meta.url), handle.fileDescriptor, { descriptor: buffer.ipcDescriptor });
  buffer.close();
  mr.close();
}
