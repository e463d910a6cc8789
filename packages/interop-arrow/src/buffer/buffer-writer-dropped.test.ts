// Issue 21, item 7: bytes a buffered BufferWriter accepted reach the device even when the writer
// is dropped without close() or flush(): its finalizer flushes them.
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, contextWith } from '../../test/support.js';
import type { Context } from '../context/context.js';
import { BufferWriter } from './buffer-writer.js';
import type { CudaBuffer } from './cuda-buffer.js';

// In a function of its own so that no reference to the writer outlives the call.
function writeAndDrop(target: CudaBuffer, bytes: Uint8Array, position = 0): WeakRef<BufferWriter> {
  const writer = new BufferWriter(target);
  writer.bufferSize = 64;
  if (position > 0) writer.seek(position);
  expect(writer.write(bytes)).toBe(bytes.length);
  expect(writer.numBytesBuffered).toBe(bytes.length);
  return new WeakRef(writer);
}

const sameBytes = (target: CudaBuffer, expected: number[]) =>
  Array.from(target.copyToHost({ output: 'pageable' })).every((byte, i) => byte === expected[i]);

describeEachDriver(adapters, 'BufferWriter dropped without close', (entry) => {
  let context: Context;
  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  it('flushes the staged bytes to the device when it is garbage-collected', async () => {
    const target = context.bufferFromData(new Uint8Array(8));
    const writer = writeAndDrop(target, Uint8Array.of(1, 2, 3, 4), 2);
    // Nothing reached the device yet: the 4 bytes are staged.
    expect(Array.from(target.copyToHost({ output: 'pageable' }))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    const flushed = await collectGarbageUntil(
      () => writer.deref() === undefined && sameBytes(target, [0, 0, 1, 2, 3, 4, 0, 0]),
    );
    expect(flushed).toBe(true);
    target.close();
  }, 30_000);

  it('drops the bytes without crashing when the target was closed first', async () => {
    const target = context.bufferFromData(new Uint8Array(8));
    const writer = writeAndDrop(target, Uint8Array.of(9, 9, 9, 9));
    target.close();
    expect(await collectGarbageUntil(() => writer.deref() === undefined)).toBe(true);
    // Let the finalizer run after the writer went: it must neither throw nor write.
    await collectGarbageUntil(() => false, 5);
    expect(target.isClosed).toBe(true);
  }, 30_000);

  it('a closed writer leaves nothing for its finalizer', async () => {
    const target = context.bufferFromData(new Uint8Array(4));
    const writer = new BufferWriter(target);
    writer.bufferSize = 16;
    writer.write(Uint8Array.of(5, 6));
    writer.close();
    expect(Array.from(target.copyToHost({ output: 'pageable' }))).toEqual([5, 6, 0, 0]);
    target.close();
  });
});
