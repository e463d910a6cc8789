// Issue 21, class 2: objects imitating cumem buffers — shaped like one, inheriting from a real
// one with lying getters, Proxies — name memory the program freed. Every safe API refuses them
// with a TypeError before any driver call; on the hostile fake a copy from the freed address
// would fault at once. A real buffer cannot be made to name other memory either: own properties
// defined on it are the program's, not what cumem reads.
import { BufferWriter, CudaBuffer, readMessage } from '@cumem/interop-arrow';
import { copyBatch, StridedLayout, StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const stream = memory.Stream.create(0);
const freed = mr.allocate(65536);
const freedHandle = freed.handle;
freed.close();
stream.sync();
memory.defaultStream(0).sync();

const real = mr.allocate(64);
const dst = mr.allocate(64);
dst.fill(0x5a);
memory.defaultStream(0).sync();
const lie = {
  handle: freedHandle,
  size: 64,
  deviceId: 0,
  isClosed: false,
  isManaged: false,
  isDeviceAccessible: true,
  isHostAccessible: false,
};
const imitations = [
  ['shaped', { ...lie }],
  [
    'inheriting',
    Object.create(real, {
      handle: { get: () => freedHandle },
      deviceId: { get: () => 1 },
      size: { get: () => 64 },
    }),
  ],
  [
    'proxy',
    new Proxy(real, { get: (target, key) => (key === 'handle' ? freedHandle : Reflect.get(target, key)) }),
  ],
];
for (const [what, fake] of imitations) {
  expectThrows(TypeError, `copyBatch src (${what})`, () => copyBatch(stream, [dst], [fake]));
  expectThrows(TypeError, `copyBatch dst (${what})`, () => copyBatch(stream, [fake], [real]));
  expectThrows(TypeError, `copyFrom (${what})`, () => dst.copyFrom(fake));
  expectThrows(TypeError, `copyTo (${what})`, () => real.copyTo(fake));
  expectThrows(TypeError, `fromBuffer (${what})`, () =>
    StridedMemoryView.fromBuffer(fake, StridedLayout.dense([16], 4)),
  );
  expectThrows(TypeError, `CudaBuffer.fromMemoryBuffer (${what})`, () => CudaBuffer.fromMemoryBuffer(fake));
  expectThrows(TypeError, `BufferWriter (${what})`, () => new BufferWriter(fake));
  expectThrows(TypeError, `readMessage (${what})`, () => readMessage(fake));
}
// A real buffer's facts are private, and cumem reads only those: an own property defined over a
// getter (a Buffer is an ordinary, extensible object since issue 26) changes what the program
// reads, never what a copy reads or writes.
real.fill(0x11);
Object.defineProperty(real, 'handle', { get: () => freedHandle });
Object.defineProperty(real, 'size', { value: 65536 });
real.pointer = freedHandle;
real.byteSize = 65536;
real.checkOpen = () => {};
check(real.handle === freedHandle, 'the program reads what it defined');
copyBatch(stream, [dst], [real]);
stream.sync();
const copied = new Uint8Array(64);
dst.copyTo(copied);
check(
  copied.every((b) => b === 0x11),
  'copyBatch copied the real buffer, not the address its own property names',
);
dst.fill(0x5a);
memory.defaultStream(0).sync();
// Nor are its host views or finalizer record properties: `pinned.views = null` once let close()
// free page-locked memory a live hostView() still showed (LegacyPinnedMemoryResource unmaps it:
// the next read faults), and a rewritten `releaseRecord` left the finalizer to free the memory a
// second time. Assigning them now only adds own properties nothing of cumem reads.
const pinned = new memory.LegacyPinnedMemoryResource().allocate(4096);
const managed = new memory.ManagedMemoryResource().allocate(4096);
const hostView = pinned.hostView();
hostView.fill(7);
for (const [what, buffer] of [
  ['device', real],
  ['pinned', pinned],
  ['managed', managed],
  ['slice', real.slice(0, 16)],
]) {
  for (const key of ['views', 'releaseRecord', 'accessedByView', 'advisedHostNuma', 'flags'])
    buffer[key] = null;
  check(buffer.isClosed === false, `a ${what} buffer is still open after its own properties were set`);
}
pinned.close();
check(
  hostView.byteLength === 0 || hostView.every((b) => b === 7),
  'the host view was detached, or its memory kept',
);
managed.close();
stream.sync();
const bytes = new Uint8Array(64);
dst.copyTo(bytes);
check(
  bytes.every((b) => b === 0x5a),
  'no imitation copied anything into dst',
);
for (const buffer of [real, dst]) buffer.close();
stream.close();
