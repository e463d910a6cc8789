export type { CudaArrayInterface } from './array-interface-span.js';
export { BufferReader } from './buffer-reader.js';
export { BufferWriter } from './buffer-writer.js';
export { type BufferFromDataOptions, Context } from './context.js';
export { type CopyIntoOptions, type CopyToHostOptions, CudaBuffer } from './cuda-buffer.js';
export { DeviceMessage, readMessage, readRecordBatch, serializeRecordBatch } from './device-message.js';
export {
  type DeviceColumn,
  DeviceTable,
  type DownloadOptions,
  type HostOutputChoice,
  tableFromDevice,
  tableToDevice,
} from './device-table.js';
export { type HostArrayConstructor, newHostArray } from './host-array.js';
export { HostBuffer, hostBufferOf, type NewHostBufferOptions, newHostBuffer } from './host-buffer.js';
export type { HostData } from './host-bytes.js';
export type { StagingChoice, UploadOptions } from './host-copies.js';
export type { HostDestination } from './host-destination.js';
export {
  type BufferRange,
  type ColumnChunkLayout,
  type IpcChunk,
  type IpcMessageLayout,
  type IpcStreamLayout,
  layoutRecordBatchMessage,
  layoutTable,
  type RecordBatchLayout,
} from './ipc-layout.js';
export { IpcMemHandle } from './ipc-mem-handle.js';
export type { TableUploadOptions } from './upload-output.js';
