// Which devices may access a VirtualMemoryResource's memory: the access list every new mapping
// gets, and a change of the peers applied to every open allocation in one transaction.
import { type Driver, type MemAccessDescriptor, MemAccessFlags, MemLocationType } from '@cumem/core-types';
import { Transaction, type VirtualAllocation } from './virtual-allocation.js';
import type { VirtualMemorySettings } from './virtual-memory-options.js';

/** The owner's access first, then every peer's (one `cuMemSetAccess` call takes them all). */
export function accessList(
  ordinal: number,
  settings: VirtualMemorySettings,
  peers: ReadonlySet<number>,
): MemAccessDescriptor[] {
  const location = (id: number) => ({ type: MemLocationType.Device, id });
  const descriptors: MemAccessDescriptor[] = [{ location: location(ordinal), flags: settings.selfFlags }];
  for (const peer of peers) descriptors.push({ location: location(peer), flags: settings.peerFlags });
  return descriptors;
}

/**
 * Applies `changes` (None, or any other flag meaning `settings.peerFlags`) to every allocation in
 * `records`, undone on all when one fails, then updates `peers`.
 */
export function changeVirtualPeerAccess(
  driver: Driver,
  records: Iterable<VirtualAllocation>,
  settings: VirtualMemorySettings,
  peers: Set<number>,
  changes: readonly MemAccessDescriptor[],
): void {
  const flagsOf = (id: number) => (peers.has(id) ? settings.peerFlags : MemAccessFlags.None);
  const wanted = changes.map(({ location, flags }) => ({
    location,
    flags: flags === MemAccessFlags.None ? MemAccessFlags.None : settings.peerFlags,
  }));
  const previous = changes.map(({ location }) => ({ location, flags: flagsOf(location.id) }));
  Transaction.run((t) => {
    for (const record of records) {
      driver.memSetAccess(record.base, record.mapped, wanted);
      t.undo(() => driver.memSetAccess(record.base, record.mapped, previous));
    }
  });
  for (const { location, flags } of wanted) {
    if (flags === MemAccessFlags.None) peers.delete(location.id);
    else peers.add(location.id);
  }
}
