// The Set protocol the two live views share (live-set-view.ts): answers read from the driver at
// each call, and each view's brand kept apart from the other's.
import { Device } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { useDriver } from '../runtime/driver-selection.js';
import { DeviceMemoryResource } from './device-memory-resource.js';
import { AccessedByView } from './managed/accessed-by-view.js';
import { ManagedMemoryResource } from './managed/managed-memory-resource.js';
import { PeerAccessView } from './peer-access-view.js';

describeEachDriver(adapters, 'live Set-like views', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('size, values, keys, forEach and iteration read what the driver holds now', () => {
    const managed = new ManagedMemoryResource().allocate(4096);
    const view = managed.accessedBy;
    expect(view.size).toBe(0);
    view.add(new Device(0));
    expect(view.size).toBe(1);
    expect([...view]).toEqual([new Device(0)]);
    expect([...view.keys()]).toEqual([...view.values()]);
    const seen: unknown[] = [];
    view.forEach(function (this: unknown, value, key, self) {
      seen.push(value, key, self, this);
    }, 'context');
    expect(seen).toEqual([new Device(0), new Device(0), view, 'context']);
    view.clear();
    expect(view.size).toBe(0);
    managed.close();
  });

  it("one kind of view's members refuse the other kind", () => {
    const pool = new DeviceMemoryResource(0, {});
    const managed = new ManagedMemoryResource().allocate(4096);
    expect(() => AccessedByView.prototype.has.call(pool.peerAccessibleBy, new Device(0))).toThrow(
      /^AccessedByView\.has was called on/,
    );
    expect(() => PeerAccessView.prototype.clear.call(managed.accessedBy)).toThrow(
      /^PeerAccessView\.clear was called on/,
    );
    managed.close();
    pool.close();
  });
});
