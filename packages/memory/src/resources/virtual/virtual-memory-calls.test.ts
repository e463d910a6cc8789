// The driver calls of a VirtualMemoryResource allocate + close: the same as C's (bench/c/vmm.c,
// the floor of the vmm.allocateFree rows), and a wait before the unmap only while the buffer's
// stream has work pending.
import type { Driver } from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { Stream } from '../../stream/stream.js';
import { VirtualMemoryResource } from './virtual-memory-resource.js';

/** C's calls for one allocate + close (bench/c/vmm.c), in its order. */
const allocateCloseCalls = [
  'memAddressReserve',
  'memCreate',
  'memMap',
  'memSetAccess',
  'memUnmap',
  'memRelease',
  'memAddressFree',
];
const watched = new Set([...allocateCloseCalls, 'streamQuery', 'streamSynchronize']);

/** `inner`, except that every stream reports work pending (cuStreamQuery: not ready). */
function pendingWorkDriver(inner: Driver): Driver {
  const read = (property: PropertyKey): unknown => {
    if (property === 'streamQuery') return () => false;
    const value: unknown = Reflect.get(inner, property, inner);
    return typeof value === 'function' ? value.bind(inner) : value;
  };
  return new Proxy(
    {},
    { get: (_target, property) => read(property), has: (_t, p) => Reflect.has(inner, p) },
  ) as Driver;
}

// Other streams cumem knows may be queried too (deferred releases poll them): the claims are
// about the VMM calls' order and where the wait falls relative to the unmap.
const vmmCalls = (calls: readonly string[]): string[] => calls.filter((call) => call.startsWith('mem'));

describeEachDriver(adapters, 'VirtualMemoryResource driver calls', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it("allocate + close make C's calls in C's order; an idle stream is queried, not synchronized", () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      using mr = new VirtualMemoryResource(0);
      mr.allocate(mr.granularity).close();
      log.reset();
      mr.allocate(mr.granularity).close();
      const calls = log.calls.filter((call) => watched.has(call));
      expect(vmmCalls(calls)).toEqual(allocateCloseCalls);
      expect(calls.slice(calls.indexOf('memSetAccess'), calls.indexOf('memUnmap'))).toContain('streamQuery');
      expect(calls).not.toContain('streamSynchronize');
    });
  });

  it('close waits for the stream before the unmap while it has work pending', () => {
    withCountingDriver(useDriver, pendingWorkDriver(entry.driver), (log) => {
      using mr = new VirtualMemoryResource(0);
      using stream = Stream.create(0, { nonBlocking: true });
      const buffer = mr.allocate(mr.granularity, { stream });
      buffer.fill(1, { stream });
      log.reset();
      buffer.close();
      const calls = log.calls.filter((call) => watched.has(call));
      expect(vmmCalls(calls)).toEqual(['memUnmap', 'memRelease', 'memAddressFree']);
      expect(calls.slice(0, calls.indexOf('memUnmap'))).toContain('streamSynchronize');
    });
  });
});
