// Taking peer access away from a pool waits for the work queued on the devices losing it (and
// on the owner) before the driver unmaps the memory: a copy still reading the pool through the
// mapping would fault, and a fault loses the context for the whole process. Reference driver
// (the order of the calls) and, where there are 2 or more GPUs, both adapters (a long copy
// queued behind other work, then the revocation: the bytes arrive and the context still works).
import { Device } from '@cumem/core-types';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { canAccessPeer } from '../runtime/peer-queries.js';
import { Stream } from '../stream/stream.js';

const mebibyte = 1024 * 1024;

/** The waits and the access change, in the order they reached the driver. */
function revocationCalls(calls: readonly string[]): string[] {
  return calls.filter((call) => call === 'contextSynchronize' || call === 'memPoolSetAccessMany');
}

describeEachDriverWithDevices(adapters, 2, 'revoking peer access', (entry) => {
  it('synchronizes each device losing access and the owner before cuMemPoolSetAccess; granting does not', (context) =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const usable = canAccessPeer(1, 0);
      // The reference driver always allows peer access: there the test cannot pass by returning.
      expect(usable || !entry.name.startsWith('reference')).toBe(true);
      if (!usable) context.skip(); // not applicable: device 1 cannot access device 0 (visible skip)
      using mr = new DeviceMemoryResource(0, {});
      log.reset();
      mr.peerAccessibleBy = [1];
      expect(revocationCalls(log.calls)).toEqual(['memPoolSetAccessMany']);
      log.reset();
      mr.peerAccessibleBy = [];
      expect(revocationCalls(log.calls)).toEqual([
        'contextSynchronize',
        'contextSynchronize',
        'memPoolSetAccessMany',
      ]);
      for (const revoke of [() => mr.peerAccessibleBy.delete(1), () => mr.peerAccessibleBy.clear()]) {
        mr.peerAccessibleBy.add(new Device(1));
        log.reset();
        revoke();
        expect(revocationCalls(log.calls)).toEqual([
          'contextSynchronize',
          'contextSynchronize',
          'memPoolSetAccessMany',
        ]);
        expect(mr.peerAccessibleBy.size).toBe(0);
      }
      // Nothing to revoke: no wait at all.
      log.reset();
      mr.peerAccessibleBy.clear();
      expect(mr.peerAccessibleBy.delete(1)).toBe(false);
      expect(log.calls).not.toContain('contextSynchronize');
    }));

  it('a long copy reading the pool from another device, queued behind other work, survives the revocation', (context) => {
    useDriver(entry.driver);
    if (!canAccessPeer(1, 0)) context.skip(); // not applicable: device 1 cannot access device 0
    const size = (entry.isReference ? 4 : 256) * mebibyte;
    const filler = (entry.isReference ? 1 : 8) * 1024 * mebibyte;
    using owner = new DeviceMemoryResource(0, {});
    using remote = new DeviceMemoryResource(1, {});
    using stream = Stream.create(1);
    using source = owner.allocate(size);
    const pattern = new Uint8Array(size);
    for (let index = 0; index < size; index += 4096) pattern[index] = (index >>> 12) & 255;
    source.copyFrom(pattern);
    owner.peerAccessibleBy = [1];
    // Work on device 1 that the copy waits behind: large copies of device-1 memory, so the peer
    // copy is still queued when access is taken away.
    using scratch = remote.allocate(filler / 8, { stream });
    using scratchCopy = remote.allocate(filler / 8, { stream });
    for (let round = 0; round < 8; round++) scratchCopy.copyFrom(scratch, { stream });
    using landing = remote.allocate(size, { stream });
    landing.copyFrom(source, { stream });
    owner.peerAccessibleBy = [];
    expect(owner.peerAccessibleBy.size).toBe(0);
    stream.sync();
    const back = new Uint8Array(size);
    landing.copyTo(back, { stream });
    stream.sync();
    expect(Buffer.from(back).equals(Buffer.from(pattern))).toBe(true);
    // The contexts still work: a fresh allocation and copy on each device.
    for (const resource of [owner, remote]) {
      using probe = resource.allocate(4096);
      probe.fill(7);
      const bytes = new Uint8Array(4096);
      probe.copyTo(bytes);
      expect(bytes.every((byte) => byte === 7)).toBe(true);
    }
  });
});
