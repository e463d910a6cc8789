// pyarrow.cuda's BufferReader: a file-like cursor over a CudaBuffer. `read` copies to the host,
// `readBuffer` returns zero-copy device views. Reads past the end are clamped, as in pyarrow.

import { type InspectOptionsStylized, inspect } from 'node:util';
import { CudaStateError, checkSize, describeValue, guardMembers, objectDescription } from '@cumem/core-types';
import { type HostData, hostBytes } from '../host/host-bytes.js';
import { type CudaBuffer, createView, cudaBufferBrand } from './cuda-buffer.js';
import { resolveSeek } from './position-rules.js';

/** Reads a CudaBuffer sequentially or at random positions. */
export class BufferReader {
  readonly #buffer: CudaBuffer;
  #position = 0;
  #closed = false;

  constructor(buffer: CudaBuffer) {
    if (!cudaBufferBrand.has(buffer))
      throw new TypeError(`BufferReader needs a CudaBuffer, got ${describeValue(buffer)}`);
    this.#buffer = buffer;
    // No own property can shadow a method (a subclass of the program's is its author's).
    if (new.target === BufferReader) Object.freeze(this);
  }

  /**
   * Whether `value` is a BufferReader made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isBufferReader(value: unknown): value is BufferReader {
    return typeof value === 'object' && value !== null && #buffer in value;
  }

  /** The buffer read. */
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

  /** The current position in bytes. */
  tell(): number {
    this.#check();
    return this.#position;
  }

  /**
   * Moves the position: `whence` 0 (default) from the start, 1 from the current position, 2 from
   * the end. @returns the new position. @throws RangeError outside [0, size].
   */
  seek(offset: number, whence: 0 | 1 | 2 = 0): number {
    this.#check();
    this.#position = resolveSeek(offset, whence, this.#position, this.size);
    return this.#position;
  }

  /** Copies up to `nbytes` (default: the rest) to a new host array and advances. */
  read(nbytes?: number): Uint8Array {
    const count = this.#take(nbytes);
    const bytes =
      count === 0 ? new Uint8Array(0) : this.#buffer.copyToHost({ position: this.#position, nbytes: count });
    this.#position += count;
    return bytes;
  }

  /** Copies up to `destination.byteLength` bytes into `destination`. @returns bytes read. */
  readInto(destination: HostData): number {
    const target = hostBytes(destination, 'destination');
    const count = this.#take(target.byteLength);
    if (count > 0) this.#buffer.copyToHost({ position: this.#position, nbytes: count, buf: target });
    this.#position += count;
    return count;
  }

  /**
   * A zero-copy device view of up to `nbytes` (default: the rest), and advances. The view keeps
   * the reader's CudaBuffer alive (as its `parent`) and is closed when that buffer is.
   */
  readBuffer(nbytes?: number): CudaBuffer {
    const count = this.#take(nbytes);
    const view = createView(this.#buffer, this.#position, count);
    this.#position += count;
    return view;
  }

  /** Closes the reader (not the buffer). */
  close(): void {
    this.#closed = true;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('BufferReader', BufferReader.isBufferReader, (reader) => ({
    position: reader.#position,
    size: reader.#buffer.size,
    closed: reader.#closed,
  }));

  /** `BufferReader(position: 0, size: 4096, closed: false)`. */
  toString(): string {
    return BufferReader.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link BufferReader.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return BufferReader.#description.inspect(this, depth, options, nodeInspect);
  }

  #take(nbytes: number | undefined): number {
    this.#check();
    const available = this.size - this.#position;
    if (nbytes === undefined) return available;
    return Math.min(checkSize(nbytes, 'nbytes'), available);
  }

  #check(): void {
    if (this.#closed) throw CudaStateError.closed('BufferReader');
    if (this.#buffer.isClosed) throw CudaStateError.closed('CudaBuffer');
  }
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(BufferReader, BufferReader.isBufferReader, ['toString', inspect.custom]);
