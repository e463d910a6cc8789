// What a buffer's memory is for copies and checks: the device it lives on and who can use it.
// These facts decide a copy's path, so cumem reads them from one place per buffer (buffer-state.ts):
// a built-in resource's, recorded once because they cannot change, or the driver's answer for
// memory no resource owns.

/** Where memory lives and who can use it. */
export interface MemoryFacts {
  /** The device the memory is on, or -1 for host memory. */
  readonly deviceId: number;
  /** The device can use the memory. */
  readonly isDeviceAccessible: boolean;
  /** The CPU can read and write the memory. */
  readonly isHostAccessible: boolean;
  /** The memory is CUDA managed (unified) memory. */
  readonly isManaged: boolean;
}

/** Plain device memory of device `ordinal`: the CPU cannot touch it. */
export function deviceMemoryFacts(ordinal: number): MemoryFacts {
  return Object.freeze({
    deviceId: ordinal,
    isDeviceAccessible: true,
    isHostAccessible: false,
    isManaged: false,
  });
}

/**
 * Page-locked host memory (both pinned resources, and pinned memory the driver reports): unified
 * addressing maps it for every device, and the CPU reads it in place.
 */
export const pageLockedMemoryFacts: MemoryFacts = Object.freeze({
  deviceId: -1,
  isDeviceAccessible: true,
  isHostAccessible: true,
  isManaged: false,
});

/** Ordinary pageable host memory (what the driver never saw): only the CPU can touch it. */
export const pageableMemoryFacts: MemoryFacts = Object.freeze({
  deviceId: -1,
  isDeviceAccessible: false,
  isHostAccessible: true,
  isManaged: false,
});
