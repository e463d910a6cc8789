// Handles and device pointers are bigints in the contract. koffi converts a bigint argument with
// two more N-API calls than a number (IsBigInt, then Uint64Value after IsNumber fails), so the hot
// calls pass a number wherever it is exact. The number is made by writing the bigint into a
// BigUint64Array and reading its two 32-bit halves, which is cheaper than `Number(bigint)`
// (bench/README.md has the measurements).

import { checkAddress, checkInt32, checkSize } from '@cumem/core-types';

const slot = new BigUint64Array(1);
const halves = new Uint32Array(slot.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const low = littleEndian ? 0 : 1;
const high = littleEndian ? 1 : 0;
// 2**21 in the high half keeps the value below 2**53, where a double is exact.
const highLimit = 0x200000;
const twoTo32 = 4294967296;

/** 2**53: below it a number holds a handle exactly. */
const exactLimit = 9007199254740992n;

/**
 * `value` as a koffi `uint64_t` argument: a number when it is below 2**53 (every user-space address
 * and handle on x86-64 and AArch64), else the bigint itself. The contract's argument rule is
 * core-types' `checkAddress`, which the N-API addon's ReadAddress spells too: a bigint in
 * [0, 2**64) or a non-negative safe-integer number, else a TypeError or RangeError before any
 * driver call. The fast path costs a typeof and two bigint compares (no allocation): the slot
 * wraps a negative or too large bigint, so only the compares tell it from an exact one.
 */
export function handleArgument(value: bigint, name = 'address'): number | bigint {
  if (typeof value === 'bigint') {
    slot[0] = value;
    const upper = halves[high]!;
    if (upper < highLimit && value >= 0n && value < exactLimit) return upper * twoTo32 + halves[low]!;
  }
  return checkedHandle(value, name);
}

/** The rest: a bigint from 2**53, a number, or a value the rule refuses (it throws). */
function checkedHandle(value: unknown, name: string): number | bigint {
  const checked = checkAddress(value, name);
  return typeof value === 'number' ? value : checked;
}

/**
 * `value` as a `size_t` argument: the contract's rule is core-types' `checkSize` (the addon's
 * ReadSize), a non-negative safe integer, else a TypeError or RangeError before any driver call.
 */
export function sizeArgument(value: number, name = 'size'): number {
  return Number.isSafeInteger(value) && value >= 0 ? value : checkSize(value, name);
}

/**
 * `value` as a C `int` / `unsigned int` argument (flags, an attribute, an advice, a location's
 * type or id): the contract's rule is core-types' `checkInt32` (the addon's ReadInt), an integer
 * from -2**31 to 2**32 - 1, else a TypeError or RangeError before any driver call. koffi would
 * pass 1.5 as 1 and NaN as 0.
 */
export function intArgument(value: number, name: string): number {
  return typeof value === 'number' && (value | 0) === value ? value : checkInt32(value, name);
}
