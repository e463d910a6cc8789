// Host memory arguments: anything holding bytes on the host, seen as a Uint8Array without copying.

import { describeValue } from '@cumem/core-types';
import { bufferBrand, type Buffer as MemoryBuffer } from '@cumem/memory';
import { type HostBuffer, hostBufferBrand } from './host-buffer.js';

/** Host bytes accepted by copies: typed arrays, DataView, ArrayBuffer, HostBuffer, host-accessible memory Buffer. */
export type HostData = ArrayBufferView | ArrayBuffer | SharedArrayBuffer | HostBuffer | MemoryBuffer;

/** `data` as a Uint8Array over the same memory, or undefined when it is not host data. */
export function tryHostBytes(data: unknown): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer || data instanceof SharedArrayBuffer) return new Uint8Array(data);
  if (hostBufferBrand.has(data)) return data.bytes;
  if (bufferBrand.has(data) && data.isHostAccessible) return (data as MemoryBuffer).hostView();
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
