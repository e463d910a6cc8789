// Checks a whole Arrow IPC stream from elsewhere (device memory) before Arrow JS's tableFromIPC
// reads it: the framing of every message, its flatbuffer metadata, and every record batch and
// dictionary batch against the stream's schema and its body, as readRecordBatch does for one
// message. Arrow JS trusts all of these; one flipped byte could otherwise exhaust the heap.
// Three passes, so that a reader can run the first two while the bodies are still being copied
// (pipelined-read.ts): the framing (which reads only prefixes and metadata, asking for each
// range before it reads it), the headers against the schema (no body byte), then the values of
// each batch's body.

import { Field, type Message, MessageHeader, type MetadataVersion, Schema } from 'apache-arrow';
import { arrowCall, decodeMetadata } from './message-decode.js';
import {
  checkRecordBatchBody,
  checkRecordBatchRegions,
  type RecordBatchHeader,
} from './record-batch-check.js';

const continuation = -1;

function malformed(what: string): never {
  throw new RangeError(`malformed IPC stream: ${what}`);
}

type BatchHeader = RecordBatchHeader & { readonly compression: unknown };

/** One message of a stream: its decoded metadata and where its body lies in the stream's bytes. */
export interface FramedMessage {
  readonly metadata: Message;
  readonly bodyStart: number;
  readonly bodyEnd: number;
}

/**
 * Called with byte range [start, end) of the stream before any of it is read: the bytes must
 * be in place when it returns (a reader still copying them waits or fetches them).
 */
export type EnsureBytes = (start: number, end: number) => void;

/** A batch whose body values are left to {@link checkBatchValues}. */
export interface PendingBatch {
  readonly schema: Schema;
  readonly header: RecordBatchHeader;
  readonly version: MetadataVersion;
  /** Values per dictionary id when the batch comes (its indices must stay below them). */
  readonly dictionaryLengths: ReadonlyMap<number, number>;
  readonly bodyStart: number;
  readonly bodyEnd: number;
}

/**
 * Pass 1: the framing of every message and its flatbuffer metadata, reading nothing but
 * prefixes and metadata (each range handed to `ensure` first). Mirrors Arrow JS's
 * MessageReader: a 4-byte length, or the continuation marker and then the length; 0 (or too
 * few bytes left) ends the stream.
 * @throws RangeError for malformed framing; TypeError for the IPC file format.
 */
export function frameIpcStream(bytes: Uint8Array, ensure: EnsureBytes = () => {}): FramedMessage[] {
  if (bytes.byteLength >= 6) ensure(0, 6);
  if (bytes.byteLength >= 6 && String.fromCharCode(...bytes.subarray(0, 6)) === 'ARROW1') {
    throw new TypeError('the bytes are an Arrow IPC file; tableFromDevice reads the IPC stream format');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const messages: FramedMessage[] = [];
  let position = 0;
  const readLength = (): number => {
    if (position + 4 > bytes.byteLength) {
      // Arrow JS reads what is left as a (short) length.
      ensure(position, bytes.byteLength);
      return 0;
    }
    ensure(position, position + 4);
    const value = view.getInt32(position, true);
    position += 4;
    return value;
  };
  for (;;) {
    let length = readLength();
    if (length === continuation) length = readLength();
    if (length === 0) return messages;
    if (length < 0 || position + length > bytes.byteLength) {
      malformed(`metadata of ${length} bytes at byte ${position} of ${bytes.byteLength}`);
    }
    ensure(position, position + length);
    const metadata: Message = decodeMetadata(bytes.subarray(position, position + length));
    position += length;
    if (position + metadata.bodyLength > bytes.byteLength) {
      malformed(`a ${metadata.bodyLength}-byte body at byte ${position} of ${bytes.byteLength}`);
    }
    messages.push({ metadata, bodyStart: position, bodyEnd: position + metadata.bodyLength });
    position += metadata.bodyLength;
  }
}

/**
 * Pass 2: every message's header against the stream's schema, and each batch's field nodes
 * and buffer regions against its body's length; reads no body byte.
 * @returns the batches, in stream order, whose values {@link checkBatchValues} must check.
 * @throws RangeError for a malformed stream; TypeError for compressed batches.
 */
export function checkIpcMessages(bytes: Uint8Array, messages: readonly FramedMessage[]): PendingBatch[] {
  let schema: Schema | undefined;
  let version: MetadataVersion | undefined;
  // Values of each dictionary so far (a delta batch appends, another replaces).
  const dictionaryLengths = new Map<number, number>();
  const pending: PendingBatch[] = [];
  const batch = (batchSchema: Schema, header: BatchHeader, message: FramedMessage): void => {
    if (header.compression != null) {
      throw new TypeError(
        'compressed record batches are not read from device memory (their sizes cannot be checked)',
      );
    }
    const { bodyStart, bodyEnd } = message;
    const body = bytes.subarray(bodyStart, bodyEnd);
    checkRecordBatchRegions(batchSchema, header, body, version as MetadataVersion);
    pending.push({
      schema: batchSchema,
      header,
      version: version as MetadataVersion,
      dictionaryLengths: new Map(dictionaryLengths),
      bodyStart,
      bodyEnd,
    });
  };
  for (const message of messages) {
    const { metadata } = message;
    const header = arrowCall(() => metadata.header(), 'a message header') as unknown;
    if (metadata.headerType === MessageHeader.Schema) {
      if (schema) malformed('a second schema message');
      schema = header as Schema;
      version = metadata.version;
      continue;
    }
    if (!schema || version === undefined) malformed('a message before the schema');
    if (metadata.headerType === MessageHeader.RecordBatch) {
      batch(schema, header as BatchHeader, message);
    } else if (metadata.headerType === MessageHeader.DictionaryBatch) {
      const { id, data, isDelta } = header as { id: number; data: BatchHeader; isDelta: boolean };
      const type = schema.dictionaries.get(id);
      if (!type) malformed(`a dictionary batch for unknown dictionary ${id}`);
      batch(new Schema([new Field('dictionary', type, true)]), data, message);
      dictionaryLengths.set(id, (isDelta ? (dictionaryLengths.get(id) ?? 0) : 0) + data.length);
    } else {
      malformed(`message header type ${metadata.headerType}`);
    }
  }
  return pending;
}

/** Pass 3: a batch's body values (offsets, validity counts, union ids, indices, views); its body must be in place. */
export function checkBatchValues(bytes: Uint8Array, batch: PendingBatch): void {
  const body = bytes.subarray(batch.bodyStart, batch.bodyEnd);
  checkRecordBatchBody(batch.schema, batch.header, body, batch.version, batch.dictionaryLengths);
}

/**
 * Throws RangeError (TypeError for what is refused by design: the IPC file format, compressed
 * batches) unless `bytes` is an Arrow IPC stream whose every message Arrow JS can read safely.
 */
export function checkIpcStream(bytes: Uint8Array): void {
  for (const batch of checkIpcMessages(bytes, frameIpcStream(bytes))) checkBatchValues(bytes, batch);
}
