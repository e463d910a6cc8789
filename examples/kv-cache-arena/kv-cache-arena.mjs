// A KV-cache-style arena that grows from 1 GiB to 8 GiB in 1 GiB steps with its address
// unchanged (VirtualMemoryResource reserves the 8 GiB of address space up front and maps one
// more GiB per step), while a second GPU, where there is one with peer access, reads each new
// block directly. With one GPU it grows all the same. `node kv-cache-arena.mjs --small` uses
// 64 MiB steps (for the reference driver: `CUMEM_DRIVER=reference`).
import {
  canAccessPeer,
  DeviceMemoryResource,
  deviceCount,
  Stream,
  useDriver,
  VirtualMemoryResource,
} from '@cumem/memory';

if (process.env.CUMEM_DRIVER === 'reference') {
  const { createReferenceDriver } = await import('@cumem/testing/reference-driver');
  useDriver(createReferenceDriver({ deviceCount: 2, totalMemory: 2 * 1024 ** 3 }));
}

const step = process.argv.includes('--small') ? 64 * 1024 ** 2 : 1024 ** 3;
const steps = 8;
const reader = deviceCount() > 1 && canAccessPeer(1, 0) ? 1 : -1;
const arena = new VirtualMemoryResource(0, {
  reserveSize: steps * step, // address space only: memory is mapped as the arena grows
  peers: reader >= 0 ? [reader] : [],
});
let buffer = arena.allocate(step);
const address = buffer.handle;
const scratch = reader >= 0 ? new DeviceMemoryResource(reader).allocate(4096) : null;
const readerStream = reader >= 0 ? Stream.create(reader) : null;
try {
  for (let block = 0; block < steps; block++) {
    if (block > 0) {
      const result = arena.modifyAllocation(buffer, (block + 1) * step);
      if (result.moved) throw new Error('the arena moved: reserveSize should have kept it in place');
      buffer = result.buffer;
    }
    // The newest block gets its "keys"; the reader GPU copies them out through its own stream.
    const newest = buffer.slice(block * step, 4096);
    newest.fill(block + 1);
    if (scratch && readerStream) {
      scratch.copyFrom(newest, { stream: readerStream });
      const seen = new Uint8Array(4096);
      scratch.copyTo(seen, { stream: readerStream });
      readerStream.sync();
      if (!seen.every((byte) => byte === block + 1)) throw new Error(`device ${reader} read wrong bytes`);
    }
    newest.close();
    const where = buffer.handle === address ? 'same address' : 'MOVED';
    console.log(
      `arena: ${(buffer.size / 1024 ** 3).toFixed(2)} GiB at 0x${buffer.handle.toString(16)} (${where})`,
    );
  }
  console.log(
    reader >= 0 ? `device ${reader} read every block directly` : 'one GPU (or no peer access): no reader',
  );
} finally {
  buffer.close();
  scratch?.close();
  readerStream?.close();
  arena.close();
}
