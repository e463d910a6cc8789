// Issue 45, bounds: a pointer into the middle of a host (pinned) pool allocation. Some drivers
// answer RANGE_START_ADDR for such memory with the allocation's offset into its pool; the range
// lookup then took the pointer as the start, and a claim from mid-way could reach up to that
// offset past the allocation's end. The range found for any pointer into the allocation must
// end where the allocation ends, never later, and a claim past that end is refused
// (Buffer.fromHandle: RangeError) before any copy.
// needs: hostMemoryPools
import { check, expectThrows, memory, memoryInternal, setUp } from './support.mjs';

const { driver } = await setUp();
const mr = new memory.PinnedMemoryResource({});
const size = 1 << 20;
// Neighbours on both sides, so the pool has allocations around the one checked.
const before = mr.allocate(size);
const buffer = mr.allocate(size);
const after = mr.allocate(size);
const end = buffer.handle + BigInt(size);
for (const offset of [0, 4096, 65536, size / 2, size - 1]) {
  const pointer = buffer.handle + BigInt(offset);
  const range = memoryInternal.allocationRanges.allocationRange(driver, pointer);
  check(range !== undefined, `offset ${offset}: the driver knows the memory`);
  check(
    range.end <= end,
    `offset ${offset}: the range found ends ${range.end - end} bytes past the allocation`,
  );
  check(range.start <= pointer && pointer < range.end, `offset ${offset}: the range holds the pointer`);
  const tooLong = size - offset + 256 * 1024;
  expectThrows(RangeError, `offset ${offset}: a claim reaching 256 KiB past the end`, () =>
    memory.Buffer.fromHandle(pointer, tooLong, { owner: buffer }),
  );
}
for (const each of [before, buffer, after]) each.close();
mr.close();
