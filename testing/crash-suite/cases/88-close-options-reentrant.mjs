// close({ stream }) runs the caller's getter for `stream`: a getter that closes the same buffer
// and allocates again (the pool may hand the freed address straight back) must not make the
// outer close free that address a second time, which would release the new allocation under a
// live Buffer (two live buffers at one address afterwards). The outer close finds the buffer
// closed and returns. Every memory resource kind, on the stream the memory was allocated on.
import { check, checkRoundTrip, memory, setUp } from './support.mjs';

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
console.log('close() with a re-entrant options getter frees once');
