// Issue 45, item 3 (the @cumem/utils part): a view over a Buffer keeps its offset and layout, not
// a size. Each use (a copy, a DLPack export, the CUDA Array Interface, an IPC descriptor, a new
// view) measures the layout against the buffer as it is now, so after a shrink a stale view is
// refused before any driver call instead of reaching past the end.
import { useDriver, VirtualMemoryResource } from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/support.js';
import { StridedLayout } from './strided-layout.js';
import { StridedMemoryView } from './strided-memory-view.js';

describeEachDriver(adapters, 'StridedMemoryView over a buffer that shrank', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('every use checks the layout against the buffer size now, before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
      const g = mr.granularity;
      const buffer = mr.allocate(4 * g);
      buffer.fill(5);
      const stale = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([4 * g], 1));
      const host = StridedMemoryView.fromHost(new Uint8Array(4 * g));
      stale.copyTo(host);
      const shrunk = mr.modifyAllocation(buffer, g).buffer;
      expect(shrunk.size).toBe(g);
      log.reset();
      const pastTheEnd = new RegExp(`run past the end of the buffer, which has ${g} bytes now`);
      expect(() => stale.copyTo(host)).toThrow(pastTheEnd);
      expect(() => stale.copyFrom(host)).toThrow(pastTheEnd);
      expect(() => host.copyFrom(stale)).toThrow(pastTheEnd);
      expect(() => stale.toDLPack()).toThrow(pastTheEnd);
      expect(() => stale.cudaArrayInterface).toThrow(pastTheEnd);
      expect(() => stale.view()).toThrow(RangeError);
      expect(() => stale.view(StridedLayout.dense([g + 1], 1))).toThrow(RangeError);
      expect(log.calls).toEqual([]);
      // What is left still views and copies.
      const kept = stale.view(StridedLayout.dense([g], 1));
      const bytes = new Uint8Array(g);
      kept.copyTo(StridedMemoryView.fromHost(bytes));
      expect(bytes.every((byte) => byte === 5)).toBe(true);
      shrunk.close();
      expect(() => kept.copyTo(StridedMemoryView.fromHost(bytes))).toThrow(/closed/);
      mr.close();
    }));
});
