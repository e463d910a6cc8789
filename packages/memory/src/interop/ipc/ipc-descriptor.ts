import { checkSize, describeValue, POOL_POINTER_EXPORT_SIZE } from '@cumem/core-types';

/**
 * What another process needs to open one buffer of an IPC-enabled pool: the driver's export
 * data, the size and the exporting resource's uuid. A plain frozen object of strings and
 * numbers, so `JSON.stringify`, `structuredClone` and `postMessage` all carry it.
 */
export interface IpcBufferDescriptor {
  /** `cuMemPoolExportPointer` data (64 bytes), base64-encoded. */
  readonly data: string;
  /** Buffer size in bytes. */
  readonly size: number;
  /** Uuid of the exporting memory resource, for `MemoryResource.fromRegistry`; null when it has none. */
  readonly uuid: string | null;
}

/** @internal A descriptor for export data `bytes`. */
export function makeIpcDescriptor(bytes: Uint8Array, size: number, uuid: string | null): IpcBufferDescriptor {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return Object.freeze({ data, size, uuid });
}

/**
 * @internal The export data and size of a descriptor (data as base64 or as bytes).
 * @throws TypeError for a value of the wrong shape; RangeError for data that is not 64 bytes.
 */
export function readIpcDescriptor(descriptor: unknown): { bytes: Uint8Array; size: number } {
  if (typeof descriptor !== 'object' || descriptor === null) {
    throw new TypeError(`descriptor must be an IpcBufferDescriptor, got ${describeValue(descriptor)}`);
  }
  const { data, size } = descriptor as { data?: unknown; size?: unknown };
  let bytes: Uint8Array;
  if (typeof data === 'string') bytes = new Uint8Array(Buffer.from(data, 'base64'));
  else if (data instanceof Uint8Array) bytes = data;
  else
    throw new TypeError(
      `descriptor.data must be a base64 string or a Uint8Array, got ${describeValue(data)}`,
    );
  if (bytes.byteLength !== POOL_POINTER_EXPORT_SIZE) {
    throw new RangeError(
      `descriptor.data must hold ${POOL_POINTER_EXPORT_SIZE} bytes, got ${bytes.byteLength}`,
    );
  }
  return { bytes, size: checkSize(size, 'descriptor.size') };
}
