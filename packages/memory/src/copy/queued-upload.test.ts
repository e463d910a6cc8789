// queueUpload: page-locked ranges queued on the buffer's default stream without a wait, all or
// nothing; the later copyRangesFromHost (or waitForQueuedUploads) waits for them.
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { countedResources } from '../../test/counted-resources.js';
import type { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import type { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { copyRangesFromHost, copyRangesToHost } from './host-range-copies.js';
import { queueUpload, waitForQueuedUploads } from './queued-upload.js';

describeEachDriver(adapters, 'queueUpload', (entry) => {
  let log: DriverCallLog;
  let device: DeviceMemoryResource;
  let pinned: LegacyPinnedMemoryResource;
  const copiesAndWaits = (): string[] =>
    log.calls.filter((name) => name.startsWith('memcpy') || name === 'streamSynchronize');

  beforeAll(() => {
    ({ log, device, pinned } = countedResources(entry.driver));
  });

  it('queues page-locked ranges without waiting; the next range copy waits for them', () => {
    using target = device.allocate(8192);
    using source = pinned.allocate(4096);
    source.hostView().fill(0x5c);
    log.reset();
    expect(queueUpload(target, [{ offset: 4096, bytes: source.hostView() }])).toBe(true);
    expect(copiesAndWaits()).toHaveLength(1);
    copyRangesFromHost(target, [{ offset: 0, bytes: new Uint8Array(16).fill(1) }]);
    expect(copiesAndWaits().at(-1)).toBe('streamSynchronize');
    const back = new Uint8Array(8192);
    copyRangesToHost(target, [{ offset: 0, bytes: back }]);
    expect(back[0]).toBe(1);
    expect(back.subarray(4096).every((byte) => byte === 0x5c)).toBe(true);
  });

  it('queues nothing when any range is pageable, or none is given', () => {
    using target = device.allocate(8192);
    using source = pinned.allocate(4096);
    log.reset();
    const ranges = [
      { offset: 0, bytes: source.hostView() },
      { offset: 4096, bytes: new Uint8Array(4096) },
    ];
    expect(queueUpload(target, ranges)).toBe(false);
    expect(queueUpload(target, [])).toBe(false);
    expect(copiesAndWaits()).toEqual([]);
  });

  it('waitForQueuedUploads waits for the stream; a closed buffer is refused first', () => {
    const target = device.allocate(4096);
    using source = pinned.allocate(4096);
    expect(queueUpload(target, [{ offset: 0, bytes: source.hostView() }])).toBe(true);
    log.reset();
    waitForQueuedUploads(target);
    expect(copiesAndWaits()).toEqual(['streamSynchronize']);
    target.close();
    expect(() => queueUpload(target, [{ offset: 0, bytes: source.hostView() }])).toThrow(/closed/);
  });
});
