// Options objects are the caller's, and reading one runs its getters.
// - close({ stream }) whose getter closes the same buffer and allocates again (the pool may hand
//   the freed address straight back) must not free that address a second time, which would
//   release the new allocation under a live Buffer (two live buffers at one address afterwards).
//   The outer close finds the buffer closed and returns.
// - mr.allocate(size, { stream }) whose getter closes the resource (an owned pool is destroyed)
//   must refuse (CudaStateError), not hand the driver the destroyed pool.
// Every memory resource kind, on the stream the memory was allocated on.
// needs: hostMemoryPools
import { CudaStateError } from '@cumem/core-types';
import { check, checkRoundTrip, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const resources = {
  DeviceMemoryResource: new memory.DeviceMemoryResource(0),
  ManagedMemoryResource: new memory.ManagedMemoryResource(),
  PinnedMemoryResource: new memory.PinnedMemoryResource(),
};
for (const [kind, mr] of Object.entries(resources)) {
  const size = 1 << 20;
  const buffer = mr.allocate(size, { stream });
  let reallocated;
  buffer.close({
    get stream() {
      buffer.close({ stream });
      reallocated = mr.allocate(size, { stream });
      return stream;
    },
  });
  check(buffer.isClosed, `${kind}: the buffer is closed`);
  check(
    reallocated !== undefined && !reallocated.isClosed,
    `${kind}: the allocation made in the getter is open`,
  );
  // Had the outer close freed the address again, the pool could hand it out once more.
  const next = mr.allocate(size, { stream });
  check(
    next.handle !== reallocated.handle,
    `${kind}: two live buffers at 0x${next.handle.toString(16)}: the getter's allocation was freed under it`,
  );
  checkRoundTrip(reallocated, 0x5a, `${kind}: the getter's allocation holds its bytes`, stream);
  checkRoundTrip(next, 0xa5, `${kind}: the next allocation holds its bytes`, stream);
  stream.sync();
  reallocated.close({ stream });
  next.close({ stream });
}
stream.sync();

const closedByGetter = {
  DeviceMemoryResource: () => new memory.DeviceMemoryResource(0, {}),
  ManagedMemoryResource: () => new memory.ManagedMemoryResource(),
  PinnedMemoryResource: () => new memory.PinnedMemoryResource(),
  LegacyPinnedMemoryResource: () => new memory.LegacyPinnedMemoryResource(),
  VirtualMemoryResource: () => new memory.VirtualMemoryResource(0),
};
for (const [kind, make] of Object.entries(closedByGetter)) {
  const mr = make();
  expectThrows(CudaStateError, `${kind}.allocate whose options getter closed the resource`, () =>
    mr.allocate(1 << 20, {
      get stream() {
        mr.close();
        return stream;
      },
    }),
  );
}
stream.sync();
console.log(
  'options getters that close the buffer or resource: one free, no allocation from a closed resource',
);
