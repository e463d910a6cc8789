// queueDownload: pieces copied in stream order, one event each; waiting for a piece waits for it
// and those before; a piece refused while queuing drains what was queued before the error.
import { patternBytes } from '@cumem/test-support';
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { countedResources } from '../../test/counted-resources.js';
import type { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import type { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { queueDownload } from './queued-download.js';

describeEachDriver(adapters, 'queueDownload', (entry) => {
  let log: DriverCallLog;
  let device: DeviceMemoryResource;
  let pinned: LegacyPinnedMemoryResource;

  beforeAll(() => {
    ({ log, device, pinned } = countedResources(entry.driver));
  });

  it('copies every piece, an event after each, and waits once per waitFor / finish', () => {
    const size = 3 * 65536;
    using source = device.allocate(size);
    const expected = patternBytes(size, 7);
    source.copyFrom(expected);
    using host = pinned.allocate(size);
    const bytes = host.hostView();
    bytes.fill(0);
    log.reset();
    const download = queueDownload(source, [
      [{ offset: 0, bytes: bytes.subarray(0, 65536) }],
      [
        { offset: 65536, bytes: bytes.subarray(65536, 100000) },
        { offset: 100000, bytes: bytes.subarray(100000, size) },
      ],
    ]);
    expect(download.pieces).toBe(2);
    expect(log.calls.filter((name) => name === 'eventRecord')).toHaveLength(2);
    expect(log.calls).not.toContain('streamSynchronize');
    download.waitFor(0);
    expect(bytes.subarray(0, 65536)).toEqual(expected.subarray(0, 65536));
    expect(log.calls).toContain('eventSynchronize');
    download.finish();
    download.finish(); // idempotent
    download.waitFor(1); // after finish: nothing to wait for
    expect(bytes).toEqual(expected);
    expect(log.calls.filter((name) => name === 'streamSynchronize')).toHaveLength(1);
    expect(log.calls.filter((name) => name === 'eventDestroy')).toHaveLength(2);
  });

  it('a piece refused while queuing: the pieces before it are waited for, then the error', () => {
    using source = device.allocate(4096);
    source.copyFrom(patternBytes(4096, 3));
    using host = pinned.allocate(8192);
    const bytes = host.hostView();
    log.reset();
    expect(() =>
      queueDownload(source, [
        [{ offset: 0, bytes: bytes.subarray(0, 4096) }],
        [{ offset: 4000, bytes: bytes.subarray(4096, 8192) }],
      ]),
    ).toThrow(RangeError);
    expect(log.calls).toContain('streamSynchronize');
    expect(bytes.subarray(0, 4096)).toEqual(patternBytes(4096, 3));
  });

  it('waitFor of a piece that was never queued is a RangeError; a closed source is refused', () => {
    using source = device.allocate(64);
    using host = pinned.allocate(64);
    const download = queueDownload(source, [[{ offset: 0, bytes: host.hostView() }]]);
    expect(() => download.waitFor(1)).toThrow(RangeError);
    download.finish();
    source.close();
    expect(() => queueDownload(source, [])).toThrow(/closed/);
  });
});
