// Checks a whole Arrow IPC stream from elsewhere (device memory) before Arrow JS's tableFromIPC
// reads it: the framing of every message, its flatbuffer metadata, and every record batch and
// dictionary batch against the stream's schema and its body, as readRecordBatch does for one
// message. Arrow JS trusts all of these; one flipped byte could otherwise exhaust the heap.

import { Field, type Message, MessageHeader, type MetadataVersion, Schema } from 'apache-arrow';
import { arrowCall, decodeMetadata } from './message-decode.js';
import { checkRecordBatchBody, type RecordBatchHeader } from './record-batch-check.js';

const continuation = -1;

function malformed(what: string): never {
  throw new RangeError(`malformed IPC stream: ${what}`);
}

type BatchHeader = RecordBatchHeader & { readonly compression: unknown };

function checkBatch(
  schema: Schema,
  header: BatchHeader,
  body: Uint8Array,
  version: MetadataVersion,
  dictionaryLengths: ReadonlyMap<number, number>,
): void {
  if (header.compression != null) {
    throw new TypeError(
      'compressed record batches are not read from device memory (their sizes cannot be checked)',
    );
  }
  checkRecordBatchBody(schema, header, body, version, dictionaryLengths);
}

/**
 * Throws RangeError (TypeError for what is refused by design: the IPC file format, compressed
 * batches) unless `bytes` is an Arrow IPC stream whose every message Arrow JS can read safely.
 */
export function checkIpcStream(bytes: Uint8Array): void {
  if (bytes.byteLength >= 6 && String.fromCharCode(...bytes.subarray(0, 6)) === 'ARROW1') {
    throw new TypeError('the bytes are an Arrow IPC file; tableFromDevice reads the IPC stream format');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let schema: Schema | undefined;
  let version: MetadataVersion | undefined;
  let position = 0;
  // Values of each dictionary so far (a delta batch appends, another replaces): the indices of
  // later batches must stay below them.
  const dictionaryLengths = new Map<number, number>();
  // Mirrors Arrow JS's MessageReader: a 4-byte length, or the continuation marker and then the
  // length; 0 (or too few bytes left) ends the stream.
  const readLength = (): number => {
    if (position + 4 > bytes.byteLength) return 0;
    const value = view.getInt32(position, true);
    position += 4;
    return value;
  };
  for (;;) {
    let length = readLength();
    if (length === continuation) length = readLength();
    if (length === 0) return;
    if (length < 0 || position + length > bytes.byteLength) {
      malformed(`metadata of ${length} bytes at byte ${position} of ${bytes.byteLength}`);
    }
    const metadata: Message = decodeMetadata(bytes.subarray(position, position + length));
    position += length;
    if (position + metadata.bodyLength > bytes.byteLength) {
      malformed(`a ${metadata.bodyLength}-byte body at byte ${position} of ${bytes.byteLength}`);
    }
    const body = bytes.subarray(position, position + metadata.bodyLength);
    position += metadata.bodyLength;
    const header = arrowCall(() => metadata.header(), 'a message header') as unknown;
    if (metadata.headerType === MessageHeader.Schema) {
      if (schema) malformed('a second schema message');
      schema = header as Schema;
      version = metadata.version;
      continue;
    }
    if (!schema || version === undefined) malformed('a message before the schema');
    if (metadata.headerType === MessageHeader.RecordBatch) {
      checkBatch(schema, header as BatchHeader, body, version, dictionaryLengths);
    } else if (metadata.headerType === MessageHeader.DictionaryBatch) {
      const { id, data, isDelta } = header as { id: number; data: BatchHeader; isDelta: boolean };
      const type = schema.dictionaries.get(id);
      if (!type) malformed(`a dictionary batch for unknown dictionary ${id}`);
      checkBatch(new Schema([new Field('dictionary', type, true)]), data, body, version, dictionaryLengths);
      dictionaryLengths.set(id, (isDelta ? (dictionaryLengths.get(id) ?? 0) : 0) + data.length);
    } else {
      malformed(`message header type ${metadata.headerType}`);
    }
  }
}
