// Class 3: a device pool's allocation handle imported as a pinned pool (and the reverse) must
// never hand out a Buffer of the wrong kind: the driver cannot describe an imported pool, so the
// first buffer imported through it is checked (memory type, device) and refused with TypeError
// before any Buffer exists — a device buffer never claims to be host-accessible — and from then
// on every use of the resource is refused with that TypeError (issue 21).
// needs: interprocess, hostMemoryPools, hostNumaLocations, processes
import { fileURLToPath } from 'node:url';
import { check, expectThrows, memory, readRequest, runChild, setUp } from './support.mjs';

await setUp();
if (process.argv[2] === 'child') {
  const { descriptor, exportedKind } = await readRequest();
  const handle = memory.IpcAllocationHandle.fromFileDescriptor(3);
  // Import the pool as the OTHER kind; the pool import itself may or may not be refused by the
  // driver, but no buffer of the wrong kind may come out of it.
  let mr;
  try {
    mr =
      exportedKind === 'device'
        ? memory.PinnedMemoryResource.fromAllocationHandle(handle)
        : memory.DeviceMemoryResource.fromAllocationHandle(0, handle);
  } catch (error) {
    if (!(error instanceof TypeError) && error?.name !== 'CudaError') throw error;
    process.exit(0);
  }
  expectThrows(TypeError, `a ${exportedKind} pool's buffer imported through the other kind`, () =>
    memory.Buffer.fromIpcDescriptor(mr, descriptor),
  );
  // Issue 21: once found out, every later use of the resource is refused; only close() works.
  expectThrows(TypeError, 'a second buffer import', () => memory.Buffer.fromIpcDescriptor(mr, descriptor));
  expectThrows(TypeError, 'attributes of the mis-imported pool', () => mr.attributes);
  if (exportedKind === 'pinned') {
    expectThrows(TypeError, 'peerAccessibleBy of the mis-imported pool', () => mr.peerAccessibleBy);
  }
  mr.close();
  check(mr.isClosed, 'close() still works');
} else {
  for (const exportedKind of ['device', 'pinned']) {
    const mr =
      exportedKind === 'device'
        ? new memory.DeviceMemoryResource(0, { ipcEnabled: true })
        : new memory.PinnedMemoryResource({ ipcEnabled: true, numaId: 0 });
    const buffer = mr.allocate(65536);
    const handle = mr.getAllocationHandle();
    await runChild(fileURLToPath(import.meta.url), handle.fileDescriptor, {
      descriptor: buffer.ipcDescriptor,
      exportedKind,
    });
    buffer.close();
    mr.close();
  }
}
