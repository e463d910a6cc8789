// The number a live allocation is filed under (LiveAllocations' Set, the trackers' Maps).

// Reading the bigint's two 32-bit halves through a BigUint64Array costs less than `Number(bigint)`
// on every allocate + close that reaches the Set (bench/README.md, allocate-close-parts).
// Addresses are below 2^53, so the key is exact either way.
const slot = new BigUint64Array(1);
const halves = new Uint32Array(slot.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const low = littleEndian ? 0 : 1;
const high = 1 - low;

/** `pointer` as a number key (exact below 2^53; larger values never come from the driver). */
export function pointerKey(pointer: bigint): number {
  slot[0] = pointer;
  return halves[high]! * 4294967296 + halves[low]!;
}
