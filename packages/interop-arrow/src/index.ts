export type { CudaArrayInterface } from './buffer/array-interface-span.js';
export { BufferReader } from './buffer/buffer-reader.js';
export { BufferWriter } from './buffer/buffer-writer.js';
export { type CopyIntoOptions, type CopyToHostOptions, CudaBuffer } from './buffer/cuda-buffer.js';
export type { StagingChoice, UploadOptions } from './buffer/host-copies.js';
export { IpcMemHandle } from './buffer/ipc-mem-handle.js';
export { type BufferFromDataOptions, Context } from './context/context.js';
export { type HostArrayConstructor, newHostArray } from './host/host-array.js';
export { HostBuffer, hostBufferOf, type NewHostBufferOptions, newHostBuffer } from './host/host-buffer.js';
export type { HostData } from './host/host-bytes.js';
export type { HostDestination } from './host/host-destination.js';
export { DeviceMessage, readMessage, readRecordBatch, serializeRecordBatch } from './table/device-message.js';
export {
  type DeviceColumn,
  DeviceTable,
  type DownloadOptions,
  type HostOutputChoice,
  tableFromDevice,
  tableToDevice,
} from './table/device-table.js';
export {
  type BufferRange,
  type ColumnChunkLayout,
  type IpcChunk,
  type IpcMessageLayout,
  type IpcStreamLayout,
  layoutRecordBatchMessage,
  layoutTable,
  type RecordBatchLayout,
} from './table/ipc-layout.js';
export type { TableUploadOptions } from './table/upload-output.js';
