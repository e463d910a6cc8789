// pyarrow.cuda's BufferWriter: writes host bytes into a CudaBuffer. Unbuffered by default;
// with `bufferSize` > 0 small writes gather in pinned host memory and go to the device in one
// copy. Rules of Arrow's CudaBufferWriter: a write that would fill the staging buffer flushes it
// and goes straight to the device; seek and writeAt flush first.

import { CudaStateError, checkSize, describeValue } from '@cumem/core-types';
import { type CudaBuffer, cudaBufferBrand } from './cuda-buffer.js';
import { type HostBuffer, newHostBuffer } from './host-buffer.js';
import { type HostData, hostBytes } from './host-bytes.js';
import { checkPosition, resolveSeek } from './position-rules.js';

/** Writes a CudaBuffer sequentially or at given positions. */
export class BufferWriter {
  readonly #buffer: CudaBuffer;
  #position = 0;
  #staging: HostBuffer | null = null;
  #buffered = 0;
  #closed = false;

  constructor(buffer: CudaBuffer) {
    if (!cudaBufferBrand.has(buffer))
      throw new TypeError(`BufferWriter needs a CudaBuffer, got ${describeValue(buffer)}`);
    if (!buffer.isMutable) throw new TypeError('BufferWriter needs a mutable CudaBuffer');
    this.#buffer = buffer;
  }

  /** The buffer written. */
  get buffer(): CudaBuffer {
    return this.#buffer;
  }

  /** Size of the buffer in bytes. */
  get size(): number {
    return this.#buffer.size;
  }

  /** True after {@link close}. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Size in bytes of the pinned host staging buffer; 0 (default) = unbuffered. */
  get bufferSize(): number {
    return this.#staging?.size ?? 0;
  }

  /** Sets the staging size (bytes); flushes what is buffered first. 0 turns buffering off. */
  set bufferSize(size: number) {
    checkSize(size, 'bufferSize');
    this.#check();
    this.flush();
    this.#staging?.close();
    this.#staging = size > 0 ? newHostBuffer(size, { device: this.#buffer.context.device }) : null;
  }

  /** Bytes written but still in the host staging buffer. */
  get numBytesBuffered(): number {
    return this.#buffered;
  }

  /** The current position in bytes (including buffered bytes). */
  tell(): number {
    this.#check();
    return this.#position;
  }

  /** Moves the position (flushing first): `whence` 0 from the start, 1 from the current position, 2 from the end. */
  seek(offset: number, whence: 0 | 1 | 2 = 0): number {
    this.#check();
    const target = resolveSeek(offset, whence, this.#position, this.size);
    this.flush();
    this.#position = target;
    return target;
  }

  /** Writes `data` at the current position and advances. @returns bytes written. */
  write(data: HostData): number {
    const bytes = hostBytes(data, 'data');
    this.#check();
    const n = bytes.byteLength;
    if (n === 0) return 0;
    if (n > this.size - this.#position) {
      throw new RangeError(
        `write out of bounds: ${n} bytes at position ${this.#position} of a ${this.size}-byte buffer`,
      );
    }
    const staging = this.#staging;
    if (staging && this.#buffered + n < staging.size) {
      staging.bytes.set(bytes, this.#buffered);
      this.#buffered += n;
    } else {
      this.flush();
      this.#buffer.copyFromHost(bytes, { position: this.#position, nbytes: n });
    }
    this.#position += n;
    return n;
  }

  /** Writes `data` at `position` (flushing first); the position ends after the data. */
  writeAt(position: number, data: HostData): number {
    checkPosition(position, this.size);
    hostBytes(data, 'data');
    this.seek(position);
    return this.write(data);
  }

  /** Copies buffered bytes to the device. */
  flush(): void {
    this.#check();
    if (this.#buffered === 0 || !this.#staging) return;
    const count = this.#buffered;
    this.#buffered = 0;
    this.#buffer.copyFromHost(this.#staging.bytes.subarray(0, count), {
      position: this.#position - count,
      nbytes: count,
    });
  }

  /** Flushes and releases the staging memory (idempotent). The buffer stays open. */
  close(): void {
    if (this.#closed) return;
    if (!this.#buffer.isClosed) this.flush();
    this.#closed = true;
    this.#staging?.close();
    this.#staging = null;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #check(): void {
    if (this.#closed) throw CudaStateError.closed('BufferWriter');
    if (this.#buffer.isClosed) throw CudaStateError.closed('CudaBuffer');
  }
}
