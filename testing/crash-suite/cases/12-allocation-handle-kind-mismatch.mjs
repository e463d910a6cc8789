// Class 3: a device pool's allocation handle imported as a pinned pool (and the reverse) is a
// TypeError, before any driver call.
// needs: interprocess, hostMemoryPools, hostNumaLocations
import { expectThrows, memory, setUp } from './support.mjs';

await setUp();
const device = new memory.DeviceMemoryResource(0, { ipcEnabled: true });
const pinned = new memory.PinnedMemoryResource({ ipcEnabled: true, numaId: 0 });
expectThrows(TypeError, 'PinnedMemoryResource.fromAllocationHandle(a device pool handle)', () =>
  memory.PinnedMemoryResource.fromAllocationHandle(device.getAllocationHandle()),
);
expectThrows(TypeError, 'DeviceMemoryResource.fromAllocationHandle(a pinned pool handle)', () =>
  memory.DeviceMemoryResource.fromAllocationHandle(0, pinned.getAllocationHandle()),
);
device.close();
pinned.close();
