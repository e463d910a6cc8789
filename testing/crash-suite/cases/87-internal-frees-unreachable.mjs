// Methods that cumem's own modules called to free or re-map memory were reachable from any
// program, though left out of the type declarations: `mr.releaseBuffer(buffer.handle, size)` freed
// memory an open Buffer still owned (the next copy through the Buffer faults on the hostile fake),
// `buffer.finalizerRelease()()` did the same through the finalizer's path,
// `buffer.markRegistered(record)` swapped the record close() cancels, `buffer.markClosed()` kept
// close() and the finalizer from ever freeing the memory, `pool.destroyPool()`
// destroyed a pool under its open buffers, `mr.adoptBuffer(pointer)` counted a pointer no buffer
// owns, and `vmr.changePeerAccess([...])` revoked a device's access without the wait for the work
// still queued there. They are now functions of the package that no entry point exports, and the
// buffers keep working.
import { check, checkRoundTrip, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const resources = [
  new memory.DeviceMemoryResource(0),
  new memory.PinnedMemoryResource(),
  new memory.ManagedMemoryResource(),
  new memory.LegacyPinnedMemoryResource(),
  new memory.VirtualMemoryResource(0),
];
const internalFrees = [
  'releaseBuffer',
  'adoptBuffer',
  'destroyPool',
  'changePeerAccess',
  'peerAccessOf',
  'finalizerRelease',
  'markRegistered',
  'needsFinalizer',
  'markClosed',
];

for (const resource of resources) {
  const what = resource.constructor.name;
  const buffer = resource.allocate(4096, { stream });
  const slice = buffer.slice(1024, 2048);
  for (const object of [resource, buffer, slice]) {
    for (const name of internalFrees) {
      const kind = object === resource ? what : `a ${what} buffer${object === slice ? "'s slice" : ''}`;
      check(!(name in object), `${kind} has no ${name}`);
    }
  }
  checkRoundTrip(buffer, 9, `a ${what} buffer still holds its bytes`, stream);
  slice.close();
  buffer.close({ stream });
  resource.close();
}

// Buffer.fromHandle(..., { mr }) frees through the resource's books, or a user's class's
// deallocate: an object that only inherits from MemoryResource's prototype has neither and is
// refused with a TypeError, and the memory stays its owner's.
const owner = new memory.DeviceMemoryResource(0);
const held = owner.allocate(4096, { stream });
const imitation = Object.create(memory.MemoryResource.prototype);
expectThrows(TypeError, 'fromHandle with an imitation resource', () =>
  memory.Buffer.fromHandle(held.handle, 4096, { mr: imitation }),
);
let deallocated = 0;
class Counting extends memory.MemoryResource {
  allocate() {
    throw new Error('not used');
  }
  deallocate(_pointer, size) {
    deallocated += size;
  }
  get isDeviceAccessible() {
    return true;
  }
  get isHostAccessible() {
    return false;
  }
  get deviceId() {
    return 0;
  }
}
memory.Buffer.fromHandle(held.handle, 4096, { mr: new Counting() }).close();
check(
  deallocated === 4096,
  `a MemoryResource subclass's deallocate frees what it was handed (got ${deallocated})`,
);
checkRoundTrip(held, 3, 'the owner still holds its memory', stream);
held.close({ stream });
owner.close();
stream.sync();
stream.close();
console.log('internal frees: none reachable, every buffer kept its memory');
