// Class 6: 40 pinned pools, each closed right after freeing a buffer behind queued device
// work, then one sync.
// needs: hostMemoryPools
import { check, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const device = new memory.DeviceMemoryResource(0);
const target = device.allocate(1 << 20, { stream });
for (let i = 0; i < 40; i++) {
  const mr = new memory.PinnedMemoryResource();
  const staging = mr.allocate(1 << 20, { stream });
  staging.hostView().fill(i);
  target.copyFrom(staging, { stream });
  staging.close({ stream });
  mr.close();
}
stream.sync();
const bytes = new Uint8Array(1 << 20);
target.copyTo(bytes, { stream });
stream.sync();
check(
  bytes.every((b) => b === 39),
  'the last copy landed',
);
target.close({ stream });
stream.sync();
