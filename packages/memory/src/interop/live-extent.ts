// A view's bytes checked against the buffer as it is now, at each use: a view or an imported
// interface captures an offset and a length, and the buffer may have shrunk (modifyAllocation)
// or closed since. Reading the capacity once, when the view was made, let a stale view copy
// past the end of a shrunk buffer with only the driver to stop it.
import { CudaStateError, checkSize, describeValue } from '@cumem/core-types';
import { type BufferBase, bufferBrand, bufferState } from '../buffer/buffer-base.js';

/**
 * Checks that bytes `[offset, offset + byteLength)` of `buffer` lie within its size now.
 * @param what - names the user in the message (e.g. `'StridedMemoryView.copyTo'`).
 * @throws TypeError for anything but a Buffer or bad numbers; CudaStateError when the buffer is
 *   closed; RangeError when the bytes run past its current size.
 */
export function checkLiveExtent(buffer: BufferBase, offset: number, byteLength: number, what: string): void {
  bufferBrand.check(buffer, 'buffer');
  checkSize(offset, 'offset');
  checkSize(byteLength, 'byteLength');
  if (typeof what !== 'string') throw new TypeError(`what must be a string, got ${describeValue(what)}`);
  if (bufferState(buffer).isClosed) throw CudaStateError.closed('Buffer');
  const size = bufferState(buffer).size;
  if (offset + byteLength > size) {
    throw new RangeError(
      `${what}: bytes ${offset} to ${offset + byteLength} run past the end of the buffer, which has ${size} bytes now`,
    );
  }
}
