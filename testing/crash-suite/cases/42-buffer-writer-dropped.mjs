// Issue 21, class 7: a buffered BufferWriter dropped without close() or flush() still delivers
// the bytes write() accepted (its finalizer flushes them, its staging memory alive until then);
// one whose CudaBuffer was closed first drops them without crashing.
import { BufferWriter, Context } from '@cumem/interop-arrow';
import { check, collectGarbage, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const target = context.bufferFromData(new Uint8Array(8));
const closedFirst = context.bufferFromData(new Uint8Array(8));
const dropped = [];
(() => {
  for (const [buffer, bytes] of [
    [target, Uint8Array.of(1, 2, 3, 4)],
    [closedFirst, Uint8Array.of(9, 9, 9, 9)],
  ]) {
    const writer = new BufferWriter(buffer);
    writer.bufferSize = 64;
    writer.write(bytes);
    dropped.push(new WeakRef(writer));
  }
})();
closedFirst.close();
let arrived = false;
for (let round = 0; round < 50 && !arrived; round++) {
  await collectGarbage(2);
  await new Promise((resolve) => setTimeout(resolve, 5));
  arrived = Array.from(target.copyToHost({ output: 'pageable' }).subarray(0, 4)).join() === '1,2,3,4';
}
check(arrived, 'the 4 bytes a dropped writer accepted reached the device');
check(
  dropped.every((ref) => ref.deref() === undefined),
  'both writers were collected',
);
target.close();
