// Class 3, continued (issue 21): a pool imported as the wrong kind is found out at its first
// buffer import (the driver cannot describe an imported pool); from then on every use of the
// resource is refused with that TypeError — buffer imports, attributes, peer access — and only
// close() works. Before the fix only the buffer imports were refused.
// needs: interprocess, hostMemoryPools, hostNumaLocations, processes
import { fileURLToPath } from 'node:url';
import { check, expectThrows, memory, readRequest, runChild, setUp } from './support.mjs';

await setUp();
if (process.argv[2] === 'child') {
  const { descriptor, exportedKind } = await readRequest();
  const handle = memory.IpcAllocationHandle.fromFileDescriptor(3);
  let mr;
  try {
    mr =
      exportedKind === 'device'
        ? memory.PinnedMemoryResource.fromAllocationHandle(handle)
        : memory.DeviceMemoryResource.fromAllocationHandle(0, handle);
  } catch (error) {
    // Refused at import (the driver told): as good.
    if (!(error instanceof TypeError) && error?.name !== 'CudaError') throw error;
    process.exit(0);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    expectThrows(TypeError, `buffer import ${attempt} through the other kind`, () =>
      memory.Buffer.fromIpcDescriptor(mr, descriptor),
    );
  }
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
