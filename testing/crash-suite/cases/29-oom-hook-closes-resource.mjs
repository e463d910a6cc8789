// Class 12 (issue 21): out-of-memory hooks that close what the allocation depends on and ask
// for a retry. Before the fix the retry allocated from the pool the hook had destroyed (closing
// the resource and freeing its last buffers): CudaError with N-API, SIGSEGV with FFI. Now the
// resource and the stream are checked again after every hook: CudaStateError, no allocation.
// Hooks for devices that do not exist are refused.
import { checkRoundTrip, expectThrows, memory, setUp } from './support.mjs';

await setUp();
for (let round = 0; round < 20; round++) {
  const mr = new memory.DeviceMemoryResource(0, {});
  mr.limit = 8192;
  const held = [mr.allocate(4096), mr.allocate(4096)];
  const unhook = memory.onOutOfMemory(
    () => {
      mr.close();
      for (const buffer of held) buffer.close();
      return true;
    },
    { resource: mr },
  );
  expectThrows(memory.CudaStateError, `round ${round}: the retry after the hook closed the resource`, () =>
    mr.allocate(4096),
  );
  unhook();
}
// A hook that closes the stream the allocation is ordered on.
const mr = new memory.DeviceMemoryResource(0, {});
mr.limit = 4096;
const stream = memory.Stream.create(0);
const held = mr.allocate(4096, { stream });
const unhook = memory.onOutOfMemory(
  () => {
    stream.close();
    return true;
  },
  { device: 0 },
);
expectThrows(memory.CudaStateError, 'the retry after the hook closed the stream', () =>
  mr.allocate(4096, { stream }),
);
unhook();
held.close();
mr.close();
// A hook that always asks again, closing a managed resource on the way.
{
  const managed = new memory.ManagedMemoryResource();
  managed.limit = 4096;
  const kept = managed.allocate(4096);
  const off = memory.onOutOfMemory(
    () => {
      managed.close();
      return true;
    },
    { resource: managed },
  );
  expectThrows(memory.CudaStateError, 'managed: the retry after the hook closed it', () =>
    managed.allocate(4096),
  );
  off();
  kept.close();
}
const count = memory.deviceCount();
for (const device of [-1, count, 4096, 2 ** 31, 2 ** 53]) {
  expectThrows(RangeError, `onOutOfMemory device ${device}`, () =>
    memory.onOutOfMemory(() => true, { device }),
  );
}
// Allocation still works afterwards.
const after = new memory.DeviceMemoryResource(0, {});
const buffer = after.allocate(65536);
checkRoundTrip(buffer, 3, 'allocation and copies still work');
buffer.close();
after.close();
