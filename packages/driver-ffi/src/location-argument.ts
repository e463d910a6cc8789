// `CUmemLocation` ({ int type; int id; }, 8 bytes) is passed by value to cuMemAdvise_v2 and
// cuMemPrefetchAsync_v2. koffi's struct-by-value path converts a JS object member by member, which
// costs more than the rest of the call (bench/README.md). On x86-64
// (System V) and AArch64 (AAPCS64) an 8-byte struct of two ints travels in one general register
// exactly as a 64-bit integer holding its bytes, so the adapter passes `type | id << 32` as a
// uint64 there. Other architectures keep koffi's struct path. test/location-argument.test.ts
// checks both against a C function compiled from cuda.h.

import { type MemLocation, MemLocationType } from '@cumem/core-types';
import { driverLocationId } from '@cumem/driver-kit';

/** True where a CUmemLocation is passed as one 64-bit integer. */
export const packsLocationAsInteger = process.arch === 'x64' || process.arch === 'arm64';

const twoTo32 = 4294967296;
const smallIdLimit = 1 << 20;

/**
 * The `CUmemLocation` argument for `location`, in the form the bound function was declared with,
 * its id as driver-kit's `driverLocationId` says (0 for Host).
 */
export function locationArgument(location: MemLocation): number | bigint | MemLocation {
  if (packsLocationAsInteger) return packLocation(location.type, driverLocationId(location));
  // koffi's struct path: a new object only for a Host location with an id to drop.
  return location.type === MemLocationType.Host && location.id !== 0
    ? { type: location.type, id: 0 }
    : location;
}

/** `type` in the low 32 bits, `id` in the high 32 bits (two's complement), as a koffi uint64 argument. */
export function packLocation(type: number, id: number): number | bigint {
  // A number argument is cheaper for koffi than a bigint, and exact while the value is below 2**53.
  if (id >= 0 && id < smallIdLimit && type >= 0 && type < twoTo32) return id * twoTo32 + type;
  return BigInt.asUintN(64, (BigInt(id) << 32n) | BigInt(type >>> 0));
}
