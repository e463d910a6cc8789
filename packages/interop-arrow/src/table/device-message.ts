// Arrow IPC messages in device memory (pyarrow.cuda's serialize_record_batch, read_message,
// read_record_batch). The bytes are Arrow JS's own: a batch serialised here equals the batch
// message inside `tableToIPC`, byte for byte.

import { type InspectOptionsStylized, inspect } from 'node:util';
import { describeValue, guardMembers, objectDescription } from '@cumem/core-types';
import { type Message, MessageHeader, type RecordBatch, RecordBatchReader, type Schema } from 'apache-arrow';
import { checkArrowObject } from '../arrow-copies.js';
import { BufferReader } from '../buffer/buffer-reader.js';
import { type CudaBuffer, cudaBufferBrand } from '../buffer/cuda-buffer.js';
import { checkUploadOptions, type UploadOptions, writeRanges } from '../buffer/host-copies.js';
import { Context } from '../context/context.js';
import { hostBytes } from '../host/host-bytes.js';
import { arrowCall, decodeMetadata } from '../validation/message-decode.js';
import { checkRecordBatchBody, type RecordBatchHeader } from '../validation/record-batch-check.js';
import { layoutRecordBatchMessage, layoutSchema, writeChunks } from './ipc-layout.js';

const continuation = -1;
const prefixBytes = 8;

/** One IPC message read from device memory: metadata decoded on the host, body still on the device. */
export class DeviceMessage {
  /** Arrow JS's decoded message metadata. */
  readonly metadata: Message;
  /** The flatbuffer metadata bytes as framed (with their padding), on the host. */
  readonly metadataBytes: Uint8Array;
  /** The body: a zero-copy view of the device memory. */
  readonly body: CudaBuffer;
  // The brand: only this constructor gives an object this field.
  readonly #brand = true;

  constructor(metadata: Message, metadataBytes: Uint8Array, body: CudaBuffer) {
    this.metadata = metadata;
    this.metadataBytes = metadataBytes;
    this.body = body;
  }

  /**
   * Whether `value` is a DeviceMessage made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isDeviceMessage(value: unknown): value is DeviceMessage {
    return typeof value === 'object' && value !== null && #brand in value;
  }

  /** `MessageHeader.Schema`, `.RecordBatch` or `.DictionaryBatch`. */
  get headerType(): MessageHeader {
    return this.metadata.headerType;
  }

  /** Body length in bytes. */
  get bodyLength(): number {
    return this.metadata.bodyLength;
  }

  /** Bytes of the whole framed message: prefix, metadata and body. */
  get byteLength(): number {
    return prefixBytes + alignedMetadataLength(this.metadataBytes.byteLength) + this.bodyLength;
  }

  /**
   * The framed message copied to host memory (`out`, if given, from its start): continuation
   * marker, metadata length, metadata, body. @returns the bytes written.
   */
  toHost(out?: Uint8Array): Uint8Array {
    // `out` by its true extent (host-bytes.ts): its own byteLength cannot claim room it lacks.
    const target = out === undefined ? new Uint8Array(this.byteLength) : hostBytes(out, 'out');
    if (target.byteLength < this.byteLength) {
      throw new RangeError(`the message has ${this.byteLength} bytes, out has ${target.byteLength}`);
    }
    const metadataLength = alignedMetadataLength(this.metadataBytes.byteLength);
    const view = new DataView(target.buffer, target.byteOffset, prefixBytes);
    view.setInt32(0, continuation, true);
    view.setInt32(4, metadataLength, true);
    target.fill(0, prefixBytes, prefixBytes + metadataLength);
    target.set(this.metadataBytes, prefixBytes);
    const bodyStart = prefixBytes + metadataLength;
    if (this.bodyLength > 0) {
      this.body.copyToHost({
        buf: target.subarray(bodyStart, bodyStart + this.bodyLength),
        nbytes: this.bodyLength,
      });
    }
    return target.subarray(0, this.byteLength);
  }
  static readonly #description = objectDescription(
    'DeviceMessage',
    DeviceMessage.isDeviceMessage,
    (message) => ({
      headerType: MessageHeader[message.metadata.headerType] ?? message.metadata.headerType,
      bodyLength: message.metadata.bodyLength,
      byteLength: message.byteLength,
    }),
  );

  /** `DeviceMessage(headerType: RecordBatch, bodyLength: 4096, byteLength: 4360)`. */
  toString(): string {
    return DeviceMessage.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link DeviceMessage.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return DeviceMessage.#description.inspect(this, depth, options, nodeInspect);
  }
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(DeviceMessage, DeviceMessage.isDeviceMessage, ['toString', inspect.custom]);

// A message read in the pre-0.15 framing (4-byte prefix) is re-framed with the 8-byte prefix;
// padding the metadata keeps the body 8-byte aligned so Arrow JS can view it without copying.
function alignedMetadataLength(length: number): number {
  return ((prefixBytes + length + 7) & ~7) - prefixBytes;
}

/**
 * Writes `batch`'s IPC record batch message (Arrow JS's bytes, no schema) into new device
 * memory of `context`. Dictionary-encoded columns are refused (TypeError): use tableToDevice.
 */
export function serializeRecordBatch(
  batch: RecordBatch,
  context: Context,
  options?: UploadOptions,
): CudaBuffer {
  if (!Context.isContext(context))
    throw new TypeError(`context must be a Context, got ${describeValue(context)}`);
  checkArrowObject(batch, 'RecordBatch', 'batch');
  const upload = checkUploadOptions(options);
  const { layout, chunks } = layoutRecordBatchMessage(batch);
  const buffer = context.deviceBuffer(layout.message.byteLength);
  try {
    writeRanges(buffer, chunks, upload);
  } catch (error) {
    buffer.close();
    throw error;
  }
  return buffer;
}

/**
 * Reads one IPC message from device memory at the reader's position (or the buffer's start),
 * advancing the reader past it. @returns null at the end of the stream (no bytes left, or the
 * end-of-stream marker).
 */
export function readMessage(source: CudaBuffer | BufferReader): DeviceMessage | null {
  const reader = toReader(source);
  const prefix = reader.read(prefixBytes);
  if (prefix.byteLength < 4) return null;
  const view = new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength);
  let length = view.getInt32(0, true);
  if (length === continuation) {
    if (prefix.byteLength < prefixBytes)
      throw new RangeError('truncated IPC message: no metadata length after the marker');
    length = view.getInt32(4, true);
  } else {
    reader.seek(-(prefix.byteLength - 4), 1);
  }
  if (length === 0) return null;
  if (length < 0) throw new RangeError(`malformed IPC message: metadata length ${length}`);
  const metadataBytes = reader.read(length);
  if (metadataBytes.byteLength < length) {
    throw new RangeError(
      `truncated IPC message: ${length} bytes of metadata expected, ${metadataBytes.byteLength} left`,
    );
  }
  const metadata = decodeMetadata(metadataBytes);
  const body = reader.readBuffer(metadata.bodyLength);
  if (body.size < metadata.bodyLength) {
    throw new RangeError(
      `truncated IPC message: ${metadata.bodyLength} bytes of body expected, ${body.size} left`,
    );
  }
  return new DeviceMessage(metadata, metadataBytes, body);
}

/**
 * Reads a record batch message from device memory as an Arrow JS RecordBatch of `schema`.
 * The metadata and body are copied to the host once (Arrow JS has no device arrays); the batch
 * views that one host copy.
 */
export function readRecordBatch(
  source: CudaBuffer | BufferReader | DeviceMessage,
  schema: Schema,
): RecordBatch {
  checkArrowObject(schema, 'Schema', 'schema');
  if (schema.dictionaries.size > 0) {
    throw new TypeError(
      'schemas with dictionary-encoded fields need their dictionary messages: use tableFromDevice',
    );
  }
  const message = DeviceMessage.isDeviceMessage(source) ? source : readMessage(source);
  if (!message) throw new RangeError('no IPC message at this position (end of stream)');
  // Arrow JS reads the metadata bytes, so those are what is checked (a DeviceMessage built by
  // hand may carry a `metadata` object that does not match them).
  const metadata = decodeMetadata(message.metadataBytes);
  if (!metadata.isRecordBatch()) {
    throw new TypeError(`expected a RecordBatch message, found message header type ${metadata.headerType}`);
  }
  const header = arrowCall(() => metadata.header(), 'its record batch header') as RecordBatchHeader & {
    compression: unknown;
  };
  if (header.compression != null) {
    throw new TypeError(
      'readRecordBatch does not read compressed record batches (their sizes cannot be checked)',
    );
  }
  if (message.body.size !== metadata.bodyLength) {
    throw new RangeError(
      `the message declares a ${metadata.bodyLength}-byte body, its body has ${message.body.size}`,
    );
  }
  const schemaLayout = layoutSchema(schema);
  const eos = prefixBytes;
  const head = schemaLayout.byteLength - eos;
  const bytes = new Uint8Array(schemaLayout.byteLength + message.byteLength);
  const schemaStream = new Uint8Array(schemaLayout.byteLength);
  writeChunks(schemaLayout.chunks, schemaStream);
  bytes.set(schemaStream.subarray(0, head), 0);
  message.toHost(bytes.subarray(head, head + message.byteLength));
  bytes.set(schemaStream.subarray(head), head + message.byteLength);
  const bodyStart = head + message.byteLength - message.bodyLength;
  checkRecordBatchBody(
    schema,
    header,
    bytes.subarray(bodyStart, bodyStart + message.bodyLength),
    metadata.version,
  );
  const batch = arrowCall(() => {
    for (const read of RecordBatchReader.from(bytes)) return read;
    return undefined;
  }, 'the record batch');
  if (!batch) throw new RangeError('Arrow JS read no record batch from the message');
  return batch;
}

function toReader(source: CudaBuffer | BufferReader): BufferReader {
  if (BufferReader.isBufferReader(source)) return source;
  if (cudaBufferBrand.has(source)) return new BufferReader(source);
  throw new TypeError(`source must be a CudaBuffer or a BufferReader, got ${describeValue(source)}`);
}
