// VirtualMemoryResource IPC: in the importing process, a chunk claimed larger than exported is a
// CudaError (cuMemMap refuses it, the import is undone), a size past the chunks a RangeError, a
// descriptor that is no VMM chunk a CudaError, a closed handle a CudaStateError; the same chunk
// imported twice gives two buffers that both read the exporter's bytes and close cleanly.
// needs: interprocess, processes
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { check, expectThrows, memory, readRequest, runChild, setUp } from './support.mjs';

await setUp();
if (process.argv[2] === 'child') {
  const { descriptor } = await readRequest();
  const handle = memory.IpcAllocationHandle.fromFileDescriptor(3);
  const mr = new memory.VirtualMemoryResource(0, { handleType: 'posixFd' });
  const [chunk] = descriptor.chunks;
  expectThrows(memory.CudaError, 'a chunk claimed twice its size', () =>
    mr.importBuffer({ size: 1, chunks: [chunk * 2] }, [handle]),
  );
  expectThrows(RangeError, 'a size past the chunks', () =>
    mr.importBuffer({ size: chunk + 1, chunks: [chunk] }, [handle]),
  );
  const file = memory.IpcAllocationHandle.fromFileDescriptor(openSync(fileURLToPath(import.meta.url), 'r'));
  expectThrows(memory.CudaError, 'a file that is no VMM chunk', () => mr.importBuffer(descriptor, [file]));
  file.close();
  const first = mr.importBuffer(descriptor, [handle]);
  const second = mr.importBuffer(descriptor, [handle]);
  const bytes = new Uint8Array(descriptor.size);
  for (const buffer of [first, second]) {
    bytes.fill(0);
    buffer.copyTo(bytes);
    check(
      bytes.every((byte) => byte === 0x5a),
      "an import reads the exporter's bytes",
    );
  }
  first.close();
  second.close();
  handle.close();
  expectThrows(memory.CudaStateError, 'a closed handle', () => mr.importBuffer(descriptor, [handle]));
  mr.close();
} else {
  const mr = new memory.VirtualMemoryResource(0, { handleType: 'posixFd' });
  const buffer = mr.allocate(4096);
  buffer.fill(0x5a);
  memory.defaultStream().sync();
  const { descriptor, handles } = mr.exportBuffer(buffer);
  await runChild(fileURLToPath(import.meta.url), handles[0].fileDescriptor, { descriptor });
  buffer.close();
  for (const handle of handles) handle.close();
  mr.close();
}
