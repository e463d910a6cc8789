import { closeSync } from 'node:fs';
import type { InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkOptions,
  checkSize,
  describeValue,
  guardMembers,
  inspectCustom,
  objectDescription,
} from '@cumem/core-types';
import { activeRuntime } from '../../runtime/driver-runtime.js';
import { forgetFinalizer, registerFinalizer } from '../../runtime/object-finalizer.js';

/** @internal Whether `value` is an IpcAllocationHandle (its brand). */
export let isIpcAllocationHandle: (value: unknown) => value is IpcAllocationHandle;

const handleToken = Symbol('cumem.ipc-allocation-handle');

/** Options for {@link IpcAllocationHandle.fromFileDescriptor}. */
export interface IpcAllocationHandleOptions {
  /** Uuid of the exporting resource, so the importer can register under it. Default null. */
  readonly uuid?: string | null;
}

/**
 * A shareable handle to an IPC-enabled memory pool: on Linux a POSIX file descriptor, which
 * travels to another process through `child_process` stdio or a Unix socket. Owns the
 * descriptor: `close()` (or GC) closes it.
 */
export class IpcAllocationHandle {
  // Private and the handle frozen: `handle.descriptor = 0` made close() close the process's
  // stdin, a descriptor the handle never owned.
  #descriptor: number;
  private readonly exporterUuid: string | null;

  /**
   * Not for use: get a handle from `mr.getAllocationHandle()` or
   * {@link IpcAllocationHandle.fromFileDescriptor}. Called directly, it throws a TypeError naming those.
   */
  private constructor(token: symbol, fileDescriptor: number, uuid: string | null) {
    if (token !== handleToken)
      throw new TypeError(
        'IpcAllocationHandle has no public constructor: use mr.getAllocationHandle() or IpcAllocationHandle.fromFileDescriptor()',
      );
    this.#descriptor = fileDescriptor;
    this.exporterUuid = uuid;
    registerFinalizer(this, () => closeSync(fileDescriptor));
    Object.freeze(this);
  }

  /**
   * A handle on a duplicate of `fileDescriptor` (for example fd 3 that a parent passed to this
   * process; `Driver.duplicateFileDescriptor`, POSIX dup). The handle owns the duplicate and
   * closes only that: `fileDescriptor` stays the caller's to close, and closing either never
   * closes an unrelated file that later reuses the other's number.
   * @throws TypeError / RangeError for a descriptor that is not a non-negative integer, or a
   *   uuid that is not a string; RangeError (code 'EBADF') when `fileDescriptor` is not open.
   */
  static fromFileDescriptor(
    fileDescriptor: number,
    options?: IpcAllocationHandleOptions,
  ): IpcAllocationHandle {
    checkSize(fileDescriptor, 'fileDescriptor');
    const { uuid = null } = checkOptions(options, 'IpcAllocationHandle options');
    if (uuid !== null && typeof uuid !== 'string')
      throw new TypeError(`uuid must be a string or null, got ${describeValue(uuid)}`);
    const duplicate = activeRuntime().driver.duplicateFileDescriptor(fileDescriptor);
    return new IpcAllocationHandle(handleToken, duplicate, uuid);
  }

  /** The file descriptor this handle owns (for `fromFileDescriptor`: the duplicate). */
  get fileDescriptor(): number {
    if (this.#descriptor < 0) throw CudaStateError.closed('IpcAllocationHandle');
    return this.#descriptor;
  }

  /** Uuid of the exporting memory resource, or null. */
  get uuid(): string | null {
    return this.exporterUuid;
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.#descriptor < 0;
  }

  /** Closes the file descriptor. Idempotent. */
  close(): void {
    if (this.#descriptor < 0) return;
    const descriptor = this.#descriptor;
    this.#descriptor = -1;
    forgetFinalizer(this);
    closeSync(descriptor);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription(
    'IpcAllocationHandle',
    IpcAllocationHandle.#is,
    (handle) => {
      const closed = handle.#descriptor < 0;
      return { fileDescriptor: closed ? null : handle.#descriptor, uuid: handle.exporterUuid, closed };
    },
  );

  /** `IpcAllocationHandle(fileDescriptor: 7, uuid: null, closed: false)`. */
  toString(): string {
    return IpcAllocationHandle.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link IpcAllocationHandle.toString}. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return IpcAllocationHandle.#description.inspect(this, depth, options, nodeInspect);
  }

  /** @internal The brand: one private-field test, which a Proxy or an object inheriting from a handle fails. */
  static #is(value: unknown): value is IpcAllocationHandle {
    return typeof value === 'object' && value !== null && #descriptor in value;
  }

  static {
    isIpcAllocationHandle = (value) => IpcAllocationHandle.#is(value);
  }
}

guardMembers(IpcAllocationHandle, (value) => isIpcAllocationHandle(value), ['toString', inspectCustom]);

/** @internal A handle for a descriptor the driver just exported. */
export function exportedHandle(fileDescriptor: number, uuid: string | null): IpcAllocationHandle {
  const HandleClass = IpcAllocationHandle as unknown as new (
    token: symbol,
    fileDescriptor: number,
    uuid: string | null,
  ) => IpcAllocationHandle;
  return new HandleClass(handleToken, fileDescriptor, uuid);
}
