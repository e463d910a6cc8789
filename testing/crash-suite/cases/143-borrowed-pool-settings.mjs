// Issue 45, shared settings: `new PinnedMemoryResource()` borrows the driver's current host
// pool, which every borrower in the process shares. Setting its releaseThreshold through one
// borrower is refused (TypeError), and no other borrower sees a change; a pool of the
// resource's own (options given) takes the setting.
// needs: hostMemoryPools
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const first = new memory.PinnedMemoryResource();
const second = new memory.PinnedMemoryResource();
if (!first.isHandleOwned) {
  const before = second.attributes.releaseThreshold;
  const refused = expectThrows(TypeError, 'releaseThreshold through a borrower', () => {
    first.attributes.releaseThreshold = 0;
  });
  check(/borrows/.test(refused.message), `the refusal says why: ${refused.message}`);
  check(second.attributes.releaseThreshold === before, 'another borrower sees no change');
}
const own = new memory.PinnedMemoryResource({});
own.attributes.releaseThreshold = 1 << 20;
check(own.attributes.releaseThreshold === 1 << 20, "a pool of the resource's own takes the setting");
own.close();
const device = new memory.DeviceMemoryResource(0);
if (!device.isHandleOwned) {
  expectThrows(TypeError, "releaseThreshold through the device's current pool", () => {
    device.attributes.releaseThreshold = 0;
  });
}
