// Where tableToDevice writes the stream: new memory of the Context, or device memory the
// caller keeps and reuses (pyarrow's CudaBufferWriter over an existing buffer), which saves an
// allocation and a free of the stream's size on every upload (a visible share of the copy they
// serve, at table sizes: see the arrow rows of bench/).
import { CudaStateError, describeValue } from '@cumem/core-types';
import { type CudaBuffer, cudaBufferBrand } from '../buffer/cuda-buffer.js';
import type { UploadOptions } from '../buffer/host-copies.js';
import type { Context } from '../context/context.js';
import { contextState } from '../context/context-internals.js';

/** Options of `tableToDevice`. */
export interface TableUploadOptions extends UploadOptions {
  /**
   * Device memory to write the stream into, from its first byte, instead of a new allocation:
   * a writable CudaBuffer of the same device and driver as the Context, at least as large as
   * the stream (`layoutTable(table).byteLength`). The DeviceTable's `buffer` is then a view
   * (`output.slice(0, streamBytes)`): `output` keeps the memory alive and its owner frees it;
   * closing `output` closes the DeviceTable's buffer too (later reads throw CudaStateError),
   * while `DeviceTable.close()` closes only the view and leaves `output` open for the next
   * upload. Writing `output` again overwrites the table's stream: a DeviceTable read after
   * that reads the new bytes (they are checked again as any stream from device memory is).
   * Bytes of `output` past the stream are not kept: uploading a table whose schema object was
   * uploaded before with the same row count and column sizes starts its column copies before
   * the stream is laid out, at the places found last time, and if the layout then differs
   * (the schema was changed in place) they may land anywhere within `output` before the stream
   * is written whole.
   */
  readonly output?: CudaBuffer;
}

/**
 * Checks `output` against `context` and the stream's size, before any driver call.
 * @throws TypeError for a non-CudaBuffer or read-only memory; CudaStateError for a closed
 *   buffer or one of another device or driver; RangeError when it is smaller than the stream.
 */
export function checkUploadOutput(output: unknown, context: Context, streamBytes: number): CudaBuffer {
  if (!cudaBufferBrand.has(output))
    throw new TypeError(`output must be a CudaBuffer, got ${describeValue(output)}`);
  const buffer = output as CudaBuffer;
  if (buffer.isClosed) throw CudaStateError.closed('CudaBuffer');
  if (!buffer.isMutable) throw new TypeError('output views read-only memory');
  const mine = contextState(context);
  const theirs = contextState(buffer.context);
  if (theirs.driver !== mine.driver || theirs.device.ordinal !== mine.device.ordinal) {
    throw new CudaStateError(
      `output belongs to device ${theirs.device.ordinal} of driver ${theirs.driver.name}, the Context to device ${mine.device.ordinal} of driver ${mine.driver.name}`,
    );
  }
  if (buffer.size < streamBytes) {
    throw new RangeError(`output has ${buffer.size} bytes, the table's stream needs ${streamBytes}`);
  }
  return buffer;
}
