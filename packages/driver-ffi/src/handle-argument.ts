// Handles and device pointers are bigints in the contract. koffi converts a bigint argument with
// two more N-API calls than a number (IsBigInt, then Uint64Value after IsNumber fails): about
// 20 ns per argument, measured against the fake libcuda. So the hot calls pass a number wherever
// it is exact. `Number(bigint)` measured ~30 ns in Node 20 (V8 11.3); writing the bigint into a
// BigUint64Array and reading its two 32-bit halves measured ~14 ns, which is what this does.

const slot = new BigUint64Array(1);
const halves = new Uint32Array(slot.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const low = littleEndian ? 0 : 1;
const high = littleEndian ? 1 : 0;
// 2**21 in the high half keeps the value below 2**53, where a double is exact.
const highLimit = 0x200000;
const twoTo32 = 4294967296;

/**
 * `value` as a koffi `uint64_t` argument: a number when it is below 2**53 (every user-space address
 * and handle on x86-64 and AArch64), else the bigint itself. A negative bigint wraps to 64 bits in
 * the slot, fails the bound, and is passed as the bigint, which koffi wraps the same way.
 */
export function handleArgument(value: bigint): number | bigint {
  slot[0] = value;
  const upper = halves[high]!;
  return upper < highLimit ? upper * twoTo32 + halves[low]! : value;
}
