// Issue 45, shared settings: a resource that borrows the driver's current pool (no options)
// shares it with every other borrower in the process, so its releaseThreshold cannot be set
// through it (TypeError, before any driver call); a pool of the resource's own takes it.
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { DeviceMemoryResource } from '../device-memory-resource.js';
import { PinnedMemoryResource } from '../pinned-memory-resource.js';

describeEachDriver(adapters, 'settings of a borrowed pool', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it("refuses releaseThreshold through a borrower of the device's current pool", () => {
    const counted = countingDriver(entry.driver);
    useDriver(counted.driver);
    try {
      const borrower = new DeviceMemoryResource(0);
      const other = new DeviceMemoryResource(0);
      expect(borrower.isHandleOwned).toBe(false);
      const before = other.attributes.releaseThreshold;
      counted.log.reset();
      expect(() => {
        borrower.attributes.releaseThreshold = 0;
      }).toThrow(/releaseThreshold cannot be set through this DeviceMemoryResource: it borrows/);
      expect(counted.log.calls).toEqual([]);
      expect(other.attributes.releaseThreshold).toBe(before);
      const own = new DeviceMemoryResource(0, {});
      own.attributes.releaseThreshold = 4096;
      expect(own.attributes.releaseThreshold).toBe(4096);
      own.close();
    } finally {
      useDriver(entry.driver);
    }
  });

  it('refuses it through a borrowed PinnedMemoryResource()', (context) => {
    if (!entry.driver.capabilities.hostMemoryPools)
      context.skip('not applicable: the driver has no host memory pools');
    const borrower = new PinnedMemoryResource();
    if (borrower.isHandleOwned) context.skip('not applicable: the driver cannot name its current host pool');
    expect(() => {
      borrower.attributes.releaseThreshold = 0;
    }).toThrow(/PinnedMemoryResource: it borrows the driver's current pool/);
    const own = new PinnedMemoryResource({});
    own.attributes.releaseThreshold = 1 << 20;
    expect(own.attributes.releaseThreshold).toBe(1 << 20);
    own.close();
  });
});
