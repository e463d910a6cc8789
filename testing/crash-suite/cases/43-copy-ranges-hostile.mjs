// Issue 25: memory's many-range copy (copyRangesFromHost / copyRangesToHost, behind every
// interop-arrow upload) against a program that lies to it: views whose subclass getters
// understate their length, range objects whose `bytes` getter answers differently the second
// time, views of a HostBuffer closed before the copy, ranges past the end. The engine must copy
// exactly what it checked (no device write past the buffer, no host read past the view) and
// refuse the rest before any driver call; on the hostile fake an overrun faults at once.
import { newHostBuffer } from '@cumem/interop-arrow';
import { check, collectGarbage, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const target = mr.allocate(4096);
target.fill(0);

class Liar extends Uint8Array {
  get byteLength() {
    return 8;
  }
}
expectThrows(RangeError, 'a view understating its length', () =>
  memory.copyRangesFromHost(target, [{ offset: 4000, bytes: new Liar(1 << 20) }]),
);
expectThrows(RangeError, 'a view understating its length (download)', () =>
  memory.copyRangesToHost(target, [{ offset: 4000, bytes: new Liar(1 << 20) }]),
);

let reads = 0;
const small = new Uint8Array(32).fill(9);
memory.copyRangesFromHost(target, [
  {
    offset: 4064,
    get bytes() {
      reads++;
      return reads === 1 ? small : new Uint8Array(1 << 24).fill(1);
    },
  },
]);
check(reads === 1, `the bytes getter is read once, was read ${reads} times`);
const tail = new Uint8Array(32);
memory.copyRangesToHost(target, [{ offset: 4064, bytes: tail }]);
check(
  tail.every((byte) => byte === 9),
  'the checked bytes were copied',
);

// A HostBuffer closed before the copy: its view is detached (length 0) or, on FFI, still
// backed by memory kept until the view is collected; either way the copy reads only live memory.
for (let round = 0; round < 4; round++) {
  const host = newHostBuffer(4096);
  const view = host.bytes;
  view.fill(round + 1);
  host.close();
  memory.copyRangesFromHost(target, [{ offset: 0, bytes: view }]);
  await collectGarbage(1);
}

for (const [offset, length] of [
  [4096, 1],
  [2 ** 53 - 1, 1],
  [-1, 1],
]) {
  expectThrows(RangeError, `range ${offset}+${length}`, () =>
    memory.copyRangesFromHost(target, [{ offset, bytes: new Uint8Array(length) }]),
  );
}
target.close();
expectThrows(memory.CudaStateError, 'a closed buffer', () =>
  memory.copyRangesFromHost(target, [{ offset: 0, bytes: new Uint8Array(4) }]),
);
console.log('ok');
