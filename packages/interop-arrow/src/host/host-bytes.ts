// Host memory arguments: anything holding bytes on the host, seen as a Uint8Array without copying.

import { describeValue, viewBytes } from '@cumem/core-types';
import { bufferBrand, type Buffer as MemoryBuffer } from '@cumem/memory';
import { bufferState } from '@cumem/memory/internal';
import { type HostBuffer, hostBufferBrand } from './host-buffer.js';

/** Host bytes accepted by copies: typed arrays, DataView, ArrayBuffer, HostBuffer, host-accessible memory Buffer. */
export type HostData = ArrayBufferView | ArrayBuffer | SharedArrayBuffer | HostBuffer | MemoryBuffer;

/**
 * `data` as a Uint8Array over the same memory, or undefined when it is not host data. A view is
 * measured by its true extent (core-types' viewBytes, as @cumem/memory does): its own `byteLength`,
 * `byteOffset` or `buffer` properties, which a program can define over the prototype's getters,
 * decide nothing, and a detached view is 0 bytes. A 16-byte Uint8Array claiming 1 MiB was
 * returned as it was: copies then reported 1 MiB copied and copied 16.
 */
export function tryHostBytes(data: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(data)) return viewBytes(data);
  if (data instanceof ArrayBuffer || data instanceof SharedArrayBuffer) return new Uint8Array(data);
  if (hostBufferBrand.has(data)) return data.bytes;
  if (bufferBrand.has(data) && bufferState(data).isHostAccessible) return bufferState(data).hostView();
  return undefined;
}

/** Like {@link tryHostBytes}, throwing a TypeError that names `name` when `data` is not host data. */
export function hostBytes(data: unknown, name: string): Uint8Array {
  const bytes = tryHostBytes(data);
  if (!bytes) {
    throw new TypeError(
      `${name} must be host memory (a typed array, DataView, ArrayBuffer, HostBuffer or host-accessible Buffer), got ${describeValue(data)}`,
    );
  }
  return bytes;
}
