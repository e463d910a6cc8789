// pyarrow.cuda's BufferWriter: writes host bytes into a CudaBuffer. Unbuffered by default;
// with `bufferSize` > 0 small writes gather in pinned host memory and go to the device in one
// copy. Rules of Arrow's CudaBufferWriter: a write that would fill the staging buffer flushes it
// and goes straight to the device; seek and writeAt flush first.
//
// Bytes write() accepted are never lost (issue 21): a writer dropped with bytes still staged is
// flushed by a finalizer. The finalizer holds the writer's state (the staging memory and the
// target CudaBuffer), never the writer, so both stay alive until it ran.

import { type InspectOptionsStylized, inspect } from 'node:util';
import { CudaStateError, checkSize, describeValue, guardMembers, objectDescription } from '@cumem/core-types';
import { type HostBuffer, newHostBuffer } from '../host/host-buffer.js';
import { type HostData, hostBytes } from '../host/host-bytes.js';
import { type CudaBuffer, cudaBufferBrand } from './cuda-buffer.js';
import { checkPosition, resolveSeek } from './position-rules.js';

/** What a writer's finalizer needs: everything but the writer. */
interface WriterState {
  readonly buffer: CudaBuffer;
  position: number;
  staging: HostBuffer | null;
  buffered: number;
}

/**
 * Flushes what a dropped writer still stages. A finalizer must not throw (that would end the
 * process): when the target was closed first the bytes have nowhere to go and are dropped, as
 * the README says; any other failure is dropped likewise, and the staging memory freed.
 */
const dropped = new FinalizationRegistry<WriterState>((state) => {
  try {
    if (!state.buffer.isClosed) flushState(state);
  } catch {
    // Nowhere to report it: see above.
  } finally {
    state.buffered = 0;
    state.staging?.close();
    state.staging = null;
  }
});

function flushState(state: WriterState): void {
  if (state.buffered === 0 || !state.staging) return;
  const count = state.buffered;
  state.buffered = 0;
  state.buffer.copyFromHost(state.staging.bytes.subarray(0, count), {
    position: state.position - count,
    nbytes: count,
  });
}

/**
 * Writes a CudaBuffer sequentially or at given positions. With {@link bufferSize} set, bytes
 * `write()` accepted reach the device on `flush()`, `close()`, a write that fills the staging
 * buffer, `seek()` — or, for a writer dropped without any of those, when it is garbage-collected
 * (unless the CudaBuffer was closed first: then they are dropped).
 */
export class BufferWriter {
  readonly #state: WriterState;
  #closed = false;

  constructor(buffer: CudaBuffer) {
    if (!cudaBufferBrand.has(buffer))
      throw new TypeError(`BufferWriter needs a CudaBuffer, got ${describeValue(buffer)}`);
    if (!buffer.isMutable) throw new TypeError('BufferWriter needs a mutable CudaBuffer');
    this.#state = { buffer, position: 0, staging: null, buffered: 0 };
    // No own property can shadow a method (a subclass of the program's is its author's).
    if (new.target === BufferWriter) Object.freeze(this);
  }

  /**
   * Whether `value` is a BufferWriter made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isBufferWriter(value: unknown): value is BufferWriter {
    return typeof value === 'object' && value !== null && #state in value;
  }

  /** The buffer written. */
  get buffer(): CudaBuffer {
    return this.#state.buffer;
  }

  /** Size of the buffer in bytes. */
  get size(): number {
    return this.#state.buffer.size;
  }

  /** True after {@link close}. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Size in bytes of the pinned host staging buffer; 0 (default) = unbuffered. */
  get bufferSize(): number {
    return this.#state.staging?.size ?? 0;
  }

  /** Sets the staging size (bytes); flushes what is buffered first. 0 turns buffering off. */
  set bufferSize(size: number) {
    checkSize(size, 'bufferSize');
    this.#check();
    this.flush();
    this.#state.staging?.close();
    this.#state.staging = null;
    dropped.unregister(this);
    if (size > 0) {
      this.#state.staging = newHostBuffer(size, { device: this.#state.buffer.context.device });
      dropped.register(this, this.#state, this);
    }
  }

  /** Bytes written but still in the host staging buffer. */
  get numBytesBuffered(): number {
    return this.#state.buffered;
  }

  /** The current position in bytes (including buffered bytes). */
  tell(): number {
    this.#check();
    return this.#state.position;
  }

  /** Moves the position (flushing first): `whence` 0 from the start, 1 from the current position, 2 from the end. */
  seek(offset: number, whence: 0 | 1 | 2 = 0): number {
    this.#check();
    const target = resolveSeek(offset, whence, this.#state.position, this.size);
    this.flush();
    this.#state.position = target;
    return target;
  }

  /** Writes `data` at the current position and advances. @returns bytes written. */
  write(data: HostData): number {
    const bytes = hostBytes(data, 'data');
    this.#check();
    const n = bytes.byteLength;
    if (n === 0) return 0;
    if (n > this.size - this.#state.position) {
      throw new RangeError(
        `write out of bounds: ${n} bytes at position ${this.#state.position} of a ${this.size}-byte buffer`,
      );
    }
    const staging = this.#state.staging;
    if (staging && this.#state.buffered + n < staging.size) {
      staging.bytes.set(bytes, this.#state.buffered);
      this.#state.buffered += n;
    } else {
      this.flush();
      this.#state.buffer.copyFromHost(bytes, { position: this.#state.position, nbytes: n });
    }
    this.#state.position += n;
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
    flushState(this.#state);
  }

  /** Flushes and releases the staging memory (idempotent). The buffer stays open. */
  close(): void {
    if (this.#closed) return;
    if (!this.#state.buffer.isClosed) this.flush();
    this.#closed = true;
    dropped.unregister(this);
    this.#state.staging?.close();
    this.#state.staging = null;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('BufferWriter', BufferWriter.isBufferWriter, (writer) => {
    const state = writer.#state;
    return {
      position: state.position,
      size: state.buffer.size,
      buffered: state.buffered,
      closed: writer.#closed,
    };
  });

  /** `BufferWriter(position: 0, size: 4096, buffered: 0, closed: false)`: where the next write goes, and the bytes staged on the host. */
  toString(): string {
    return BufferWriter.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link BufferWriter.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return BufferWriter.#description.inspect(this, depth, options, nodeInspect);
  }

  #check(): void {
    if (this.#closed) throw CudaStateError.closed('BufferWriter');
    if (this.#state.buffer.isClosed) throw CudaStateError.closed('CudaBuffer');
  }
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(BufferWriter, BufferWriter.isBufferWriter, ['toString', inspect.custom]);
