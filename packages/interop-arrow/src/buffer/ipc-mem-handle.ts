// A serialisable CUDA IPC memory handle. The serialised form is pyarrow.cuda's: the
// allocation size as a little-endian int64, then the 64-byte CUipcMemHandle (absent for an
// empty buffer), so a handle written here opens in a pyarrow process and the other way round.

import { type InspectOptionsStylized, inspect } from 'node:util';
import { checkSize, guardMembers, IPC_HANDLE_SIZE, objectDescription, viewBytes } from '@cumem/core-types';

const sizeBytes = 8;
const constructing = Symbol('IpcMemHandle');

/** A handle to device memory another process can open with `Context.openIpcBuffer`. */
export class IpcMemHandle {
  readonly #size: number;
  readonly #handle: Uint8Array;

  /**
   * Not for use: get a handle from `CudaBuffer.exportForIpc()` or {@link IpcMemHandle.fromBuffer}.
   * Called directly, it throws a TypeError naming those.
   */
  private constructor(token: symbol, size: number, handle: Uint8Array) {
    if (token !== constructing) {
      throw new TypeError(
        "Do not call IpcMemHandle's constructor directly, use CudaBuffer.exportForIpc() or IpcMemHandle.fromBuffer()",
      );
    }
    this.#size = size;
    this.#handle = handle;
    Object.freeze(this);
  }

  /**
   * Whether `value` is an IpcMemHandle made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isIpcMemHandle(value: unknown): value is IpcMemHandle {
    return typeof value === 'object' && value !== null && #handle in value;
  }

  /** Size in bytes of the exported memory. */
  get size(): number {
    return this.#size;
  }

  /** A copy of the 64-byte driver handle (empty for a size-0 buffer). */
  get handle(): Uint8Array {
    return this.#handle.slice();
  }

  /** The handle as bytes to send to another process (8 + 64 bytes; 8 for an empty buffer). */
  serialize(): Uint8Array {
    const out = new Uint8Array(sizeBytes + this.#handle.byteLength);
    new DataView(out.buffer).setBigInt64(0, BigInt(this.#size), true);
    out.set(this.#handle, sizeBytes);
    return out;
  }

  static readonly #description = objectDescription('IpcMemHandle', IpcMemHandle.isIpcMemHandle, (handle) => ({
    size: handle.#size,
  }));

  /** `IpcMemHandle(size: 4096)`: the size of the exported memory (the handle bytes are the driver's). */
  toString(): string {
    return IpcMemHandle.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link IpcMemHandle.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return IpcMemHandle.#description.inspect(this, depth, options, nodeInspect);
  }

  /**
   * Reads bytes written by {@link serialize} (here or by pyarrow.cuda): exactly 8 + 64 bytes,
   * or 8 for an empty buffer. The size it carries is only a claim of the sending process;
   * `Context.openIpcBuffer` checks it against what the driver maps.
   * @throws TypeError for a non-binary argument; RangeError for a truncated, overlong or malformed handle.
   */
  static fromBuffer(bytes: ArrayBufferView | ArrayBuffer): IpcMemHandle {
    let view: Uint8Array;
    if (bytes instanceof ArrayBuffer) view = new Uint8Array(bytes);
    else if (ArrayBuffer.isView(bytes)) view = viewBytes(bytes);
    else throw new TypeError('IpcMemHandle.fromBuffer expects the bytes of IpcMemHandle.serialize()');
    if (view.byteLength < sizeBytes) {
      throw new RangeError(
        `a serialised IpcMemHandle has at least ${sizeBytes} bytes, got ${view.byteLength}`,
      );
    }
    const size = new DataView(view.buffer, view.byteOffset, sizeBytes).getBigInt64(0, true);
    if (size < 0n || size > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new RangeError(`malformed IpcMemHandle: size ${size}`);
    }
    const expected = size === 0n ? sizeBytes : sizeBytes + IPC_HANDLE_SIZE;
    if (view.byteLength !== expected) {
      throw new RangeError(
        `a serialised IpcMemHandle of a ${size}-byte buffer has ${expected} bytes, got ${view.byteLength}`,
      );
    }
    return new IpcMemHandle(constructing, Number(size), view.slice(sizeBytes, expected));
  }
}

/** @internal A handle for `size` bytes from the driver's 64 bytes. */
export function makeIpcMemHandle(size: number, handle: Uint8Array): IpcMemHandle {
  checkSize(size, 'size');
  const HandleClass = IpcMemHandle as unknown as new (
    token: symbol,
    size: number,
    handle: Uint8Array,
  ) => IpcMemHandle;
  return new HandleClass(constructing, size, handle.slice(0, IPC_HANDLE_SIZE));
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(IpcMemHandle, IpcMemHandle.isIpcMemHandle, ['toString', inspect.custom]);
