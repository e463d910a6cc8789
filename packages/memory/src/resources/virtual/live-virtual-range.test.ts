// Issue 45, capacity read from the live allocation: the range of cumem VMM memory is its
// buffer's size now, so a claim captured before a shrink is measured against the shrunk buffer.
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { VirtualMemoryResource } from './virtual-memory-resource.js';
import { liveVirtualRange } from './virtual-ranges.js';

describeEachDriver(adapters, 'liveVirtualRange', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('follows shrinks, moves and frees; knows nothing of other memory or another driver', () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const { buffer } = mr.modifyAllocation(mr.allocate(g), 4 * g);
    const base = buffer.handle;
    const middle = base + BigInt(2 * g) + 7n;
    expect(liveVirtualRange(entry.driver, middle)).toEqual({ start: base, end: base + BigInt(4 * g) });
    mr.modifyAllocation(buffer, g);
    expect(liveVirtualRange(entry.driver, base + 5n)).toEqual({ start: base, end: base + BigInt(g) });
    expect(liveVirtualRange(entry.driver, middle)).toBeUndefined();
    expect(liveVirtualRange({} as typeof entry.driver, base)).toBeUndefined();
    buffer.close();
    expect(liveVirtualRange(entry.driver, base)).toBeUndefined();
    mr.close();
  });
});
