// Where every byte of Arrow JS's own IPC stream goes, without building the stream.
//
// A subclass of Arrow JS's RecordBatchStreamWriter records each piece the writer emits (the
// 8-byte prefixes, the flatbuffer metadata, padding, and the body buffers, which are views of
// the columns' own memory) with its offset, instead of queueing it. Concatenated, the pieces
// are exactly `tableToIPC(table, 'stream')`: no framing is written here. Callers copy each
// piece straight to its final place (pinned staging or the device), so a 1 GB column is copied
// once, never concatenated into a fresh JS array first.

import { describeValue } from '@cumem/core-types';
import {
  type Message,
  MessageHeader,
  RecordBatch,
  RecordBatchStreamWriter,
  type Schema,
  Table,
  Vector,
} from 'apache-arrow';
import { assembledCounts, type ColumnCounts } from './assembled-counts.js';

/** One piece of the stream: `bytes` belong at `offset`. `bytes` may view a column's own memory. */
export interface IpcChunk {
  /** Byte offset in the stream. */
  readonly offset: number;
  /** The bytes; a view, never a copy, of what Arrow JS wrote. */
  readonly bytes: Uint8Array;
}

/** One encapsulated IPC message in the stream. All values in bytes. */
export interface IpcMessageLayout {
  readonly headerType: MessageHeader;
  /** Offset of the message's first byte (its continuation marker). */
  readonly offset: number;
  /** Prefix, flatbuffer metadata and padding: the body starts at `offset + metadataLength`. */
  readonly metadataLength: number;
  /** Offset of the body (8-byte aligned). */
  readonly bodyOffset: number;
  /** Body length, a multiple of 8. */
  readonly bodyLength: number;
  /** Whole message: `metadataLength + bodyLength`. */
  readonly byteLength: number;
}

/** One Arrow buffer of a column in the stream: absolute byte offset and length (0 = absent, e.g. no nulls). */
export interface BufferRange {
  readonly offset: number;
  readonly length: number;
}

/** A top-level column within one record batch. */
export interface ColumnChunkLayout {
  /** Number of values (rows). */
  readonly length: number;
  readonly nullCount: number;
  /**
   * The column's buffers in Arrow IPC order (depth-first over the column and its children:
   * validity, then offsets/data as the type has them). Dictionary columns list their indices.
   */
  readonly buffers: readonly BufferRange[];
}

/** A record batch message and its columns. */
export interface RecordBatchLayout {
  readonly message: IpcMessageLayout;
  readonly numRows: number;
  readonly columns: readonly ColumnChunkLayout[];
}

/** The whole stream. */
export interface IpcStreamLayout {
  /** Total bytes: the length of `tableToIPC(table, 'stream')`. */
  readonly byteLength: number;
  readonly chunks: readonly IpcChunk[];
  readonly messages: readonly IpcMessageLayout[];
  readonly batches: readonly RecordBatchLayout[];
}

class LayoutRecorder extends RecordBatchStreamWriter {
  readonly chunks: IpcChunk[] = [];
  readonly messages: IpcMessageLayout[] = [];
  readonly batches: RecordBatchLayout[] = [];
  #pendingCounts: ColumnCounts[] | undefined;
  // The writer zeroes `_position` when it closes, after writing end-of-stream.
  #end = 0;

  protected override _write(chunk: unknown): this {
    if (this._started) {
      if (!ArrayBuffer.isView(chunk))
        throw new TypeError('unexpected non-binary chunk from the Arrow writer');
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (bytes.byteLength > 0) {
        this.chunks.push({ offset: this._position, bytes });
        this._position += bytes.byteLength;
        this.#end = this._position;
      }
    }
    return this;
  }

  // Splitting the batch's buffer list per column needs each column's node and buffer counts:
  // read off the column types (assembled-counts.ts). Should they not add up to what Arrow JS
  // assembled (a type or an Arrow JS version the mirror does not know), each column is
  // assembled alone with Arrow JS's own assembler, which is exact for every type but builds
  // every column a second time.
  protected override _assembleRecordBatch(batch: RecordBatch | Vector) {
    const assembled = super._assembleRecordBatch(batch);
    if (!(batch instanceof Vector)) {
      const columns = batch.data.children;
      let counts: ColumnCounts[] | undefined;
      try {
        counts = assembledCounts(columns);
      } catch {
        counts = undefined;
      }
      const nodes = counts?.reduce((sum, column) => sum + column.nodes, 0);
      const buffers = counts?.reduce((sum, column) => sum + column.buffers, 0);
      if (nodes !== assembled.nodes.length || buffers !== assembled.bufferRegions.length) {
        counts = columns.map((child) => {
          const one = super._assembleRecordBatch(new Vector([child]));
          return { nodes: one.nodes.length, buffers: one.bufferRegions.length };
        });
      }
      this.#pendingCounts = counts;
    }
    return assembled;
  }

  protected override _writeMessage<T extends MessageHeader>(message: Message<T>, alignment?: number): this {
    const offset = this._position;
    super._writeMessage(message, alignment);
    const bodyOffset = this._position;
    const layout: IpcMessageLayout = {
      headerType: message.headerType,
      offset,
      metadataLength: bodyOffset - offset,
      bodyOffset,
      bodyLength: message.bodyLength,
      byteLength: bodyOffset - offset + message.bodyLength,
    };
    this.messages.push(layout);
    if (message.headerType === MessageHeader.RecordBatch) this.#recordBatch(message, layout);
    return this;
  }

  #recordBatch(message: Message, layout: IpcMessageLayout): void {
    const header = (message as Message<MessageHeader.RecordBatch>).header();
    const counts = this.#pendingCounts ?? [];
    this.#pendingCounts = undefined;
    const columns: ColumnChunkLayout[] = [];
    let node = 0;
    let buffer = 0;
    for (const count of counts) {
      const first = header.nodes[node];
      const regions = header.buffers.slice(buffer, buffer + count.buffers);
      columns.push({
        length: first?.length ?? 0,
        nullCount: first?.nullCount ?? 0,
        buffers: regions.map((region) => ({
          offset: layout.bodyOffset + region.offset,
          length: region.length,
        })),
      });
      node += count.nodes;
      buffer += count.buffers;
    }
    this.batches.push({ message: layout, numRows: header.length, columns });
  }

  layout(): IpcStreamLayout {
    return { byteLength: this.#end, chunks: this.chunks, messages: this.messages, batches: this.batches };
  }
}

/** The layout of `tableToIPC(table, 'stream')`: schema, dictionaries, batches and end-of-stream. */
export function layoutTable(table: Table): IpcStreamLayout {
  if (!(table instanceof Table))
    throw new TypeError(`table must be an Arrow Table, got ${describeValue(table)}`);
  const recorder = new LayoutRecorder();
  recorder.writeAll(table);
  return recorder.layout();
}

/** The layout of a stream holding only `schema` (its schema message and end-of-stream marker). */
export function layoutSchema(schema: Schema): IpcStreamLayout {
  const recorder = new LayoutRecorder();
  recorder.reset(undefined, schema);
  recorder.close();
  return recorder.layout();
}

/**
 * The one encapsulated RecordBatch message Arrow JS writes for `batch`, rebased to offset 0:
 * the bytes pyarrow's `serialize_record_batch` puts on the device. Dictionary-encoded columns
 * need dictionary messages the batch message does not carry, so they are refused.
 */
export function layoutRecordBatchMessage(batch: RecordBatch): {
  layout: RecordBatchLayout;
  chunks: IpcChunk[];
} {
  if (!(batch instanceof RecordBatch)) {
    throw new TypeError(`batch must be an Arrow RecordBatch, got ${describeValue(batch)}`);
  }
  if (batch.dictionaries.size > 0) {
    throw new TypeError(
      'the record batch has dictionary-encoded columns: a lone record batch message cannot carry their dictionaries; use tableToDevice for the whole stream',
    );
  }
  const recorder = new LayoutRecorder();
  recorder.write(batch);
  recorder.close();
  const found = recorder.batches[0];
  if (!found) throw new Error('Arrow JS wrote no record batch message');
  const start = found.message.offset;
  const end = start + found.message.byteLength;
  const chunks = recorder.chunks
    .filter((chunk) => chunk.offset >= start && chunk.offset < end)
    .map((chunk) => ({ offset: chunk.offset - start, bytes: chunk.bytes }));
  return { layout: rebaseBatch(found, -start), chunks };
}

/** The same layout with every offset moved by `delta` bytes. */
export function rebaseBatch(batch: RecordBatchLayout, delta: number): RecordBatchLayout {
  const message = {
    ...batch.message,
    offset: batch.message.offset + delta,
    bodyOffset: batch.message.bodyOffset + delta,
  };
  const columns = batch.columns.map((column) => ({
    ...column,
    buffers: column.buffers.map((range) => ({ offset: range.offset + delta, length: range.length })),
  }));
  return { message, numRows: batch.numRows, columns };
}

/** Writes the chunks into `target` at their offsets (plus `targetOffset`). */
export function writeChunks(chunks: readonly IpcChunk[], target: Uint8Array, targetOffset = 0): void {
  for (const chunk of chunks) target.set(chunk.bytes, targetOffset + chunk.offset);
}
