import { MemAccessFlags, MemLocationType } from '@cumem/core-types';
import { download, expectBytes, patternBytes, withCountingDriver } from '@cumem/test-support';
import { describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { DeviceMemoryResource } from '../device-memory-resource.js';
import { VirtualMemoryResource } from './virtual-memory-resource.js';

const location = (id: number) => ({ type: MemLocationType.Device, id }) as const;

describeEachDriverWithDevices(adapters, 2, 'VirtualMemoryResource across devices', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('peers get access to every allocation; the live view changes it in one call per allocation', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      using mr = new VirtualMemoryResource(0, { peers: [1] });
      const g = mr.granularity;
      const buffer = mr.allocate(g);
      expect(entry.driver.memGetAccess(buffer.handle, location(1))).toBe(MemAccessFlags.ReadWrite);
      expect([...mr.peerAccessibleBy].map((device) => device.ordinal)).toEqual([1]);
      const data = patternBytes(g, 21);
      buffer.copyFrom(data);
      // Device 1's memory filled from device 0's VMM buffer, then read back.
      using onDevice1 = new DeviceMemoryResource(1).allocate(g);
      onDevice1.copyFrom(buffer);
      expectBytes(download(onDevice1), data);
      log.reset();
      expect(mr.peerAccessibleBy.delete(1)).toBe(true);
      expect(log.calls.filter((call) => call === 'memSetAccess')).toHaveLength(1);
      expect(entry.driver.memGetAccess(buffer.handle, location(1))).toBe(MemAccessFlags.None);
      expect(mr.peerAccessibleBy.size).toBe(0);
      // Without access, the copy policy takes cuMemcpyPeerAsync (VMM memory is not cuMemAlloc memory).
      onDevice1.fill(0);
      log.reset();
      onDevice1.copyFrom(buffer);
      expect(log.calls).toContain('memcpyPeerAsync');
      expectBytes(download(onDevice1), data);
      mr.peerAccessibleBy = [1];
      expect(entry.driver.memGetAccess(buffer.handle, location(1))).toBe(MemAccessFlags.ReadWrite);
      // With access, one cuMemcpyAsync on device 1's stream reads the VMM memory directly.
      onDevice1.fill(0);
      log.reset();
      onDevice1.copyFrom(buffer);
      expect(log.calls).toContain('memcpyAsync');
      expect(log.calls).not.toContain('memcpyPeerAsync');
      expectBytes(download(onDevice1), data);
      // A grow maps the new chunk for the peer too.
      using wide = new VirtualMemoryResource(0, { peers: [1], reserveSize: 2 * g });
      const grown = wide.allocate(g);
      wide.modifyAllocation(grown, 2 * g);
      expect(entry.driver.memGetAccess(grown.handle + BigInt(g), location(1))).toBe(MemAccessFlags.ReadWrite);
      grown.close();
      buffer.close();
      expect(() => new VirtualMemoryResource(0, { peers: [0, 1, 2 ** 31] })).toThrow(RangeError);
    });
  });

  it('read-only peer access is what the peers get', () => {
    using mr = new VirtualMemoryResource(0, { peers: [1], peerAccess: 'read' });
    const buffer = mr.allocate(1);
    expect(entry.driver.memGetAccess(buffer.handle, location(1))).toBe(MemAccessFlags.Read);
    expect(entry.driver.memGetAccess(buffer.handle, location(0))).toBe(MemAccessFlags.ReadWrite);
    buffer.close();
  });
});
