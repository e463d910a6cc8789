// Whole Arrow tables in device memory: the table's IPC stream (Arrow JS's exact bytes) in ONE
// device allocation, plus where each column's buffers sit in it, so native code can use the
// columns in place. Coming back is one device-to-host copy and tableFromIPC over it.

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  checkInteger,
  checkOptions,
  describeValue,
  guardMembers,
  objectDescription,
} from '@cumem/core-types';
import type { Buffer as MemoryBuffer } from '@cumem/memory';
import { type Field, Schema, type Table, tableFromIPC } from 'apache-arrow';
import { checkArrowObject } from '../arrow-copies.js';
import { BufferReader } from '../buffer/buffer-reader.js';
import { type CudaBuffer, cudaBufferBrand } from '../buffer/cuda-buffer.js';
import {
  checkUploadOptions,
  memoryOf,
  readRange,
  type UploadOptions,
  writeRanges,
} from '../buffer/host-copies.js';
import { Context } from '../context/context.js';
import { contextState } from '../context/context-internals.js';
import { type HostBuffer, hostBufferBrand, newHostBuffer } from '../host/host-buffer.js';
import { checkIpcStream } from '../validation/ipc-stream-check.js';
import { arrowCall } from '../validation/message-decode.js';
import {
  type ColumnChunkLayout,
  type IpcMessageLayout,
  type IpcStreamLayout,
  layoutTable,
  type RecordBatchLayout,
} from './ipc-layout.js';
import { PIPELINED_READ_MIN_BYTES, readLayoutHint, readTablePipelined } from './pipelined-read.js';
import { checkUploadOutput, type TableUploadOptions } from './upload-output.js';
import {
  remainingChunks,
  type StartedBodies,
  startBodyCopies,
  waitForBodyCopies,
} from './upload-speculation.js';

/** One column of a {@link DeviceTable}: its field and, per record batch, where its buffers are. */
export interface DeviceColumn {
  readonly name: string;
  readonly field: Field;
  /** One entry per record batch; buffer offsets are bytes from the start of `DeviceTable.buffer`. */
  readonly chunks: readonly ColumnChunkLayout[];
}

/** An Arrow table living in device memory as its IPC stream. */
export class DeviceTable {
  /** The stream bytes (`tableToIPC(table, 'stream')`), in one device allocation. */
  readonly buffer: CudaBuffer;
  readonly schema: Schema;
  /** Total rows. */
  readonly numRows: number;
  /** Every IPC message (schema, dictionaries, batches) with its offsets. */
  readonly messages: readonly IpcMessageLayout[];
  /** Every record batch with per-column buffer offsets. */
  readonly batches: readonly RecordBatchLayout[];
  /** Per column: field and buffer offsets per batch. */
  readonly columns: readonly DeviceColumn[];
  // The brand: only this constructor, which checked the buffer and schema, gives an object this field.
  readonly #brand = true;

  constructor(
    buffer: CudaBuffer,
    schema: Schema,
    messages: readonly IpcMessageLayout[],
    batches: readonly RecordBatchLayout[],
  ) {
    if (!cudaBufferBrand.has(buffer))
      throw new TypeError(`buffer must be a CudaBuffer, got ${describeValue(buffer)}`);
    if (!(schema instanceof Schema))
      throw new TypeError(`schema must be an Arrow Schema, got ${describeValue(schema)}`);
    if (!Array.isArray(messages) || !Array.isArray(batches)) {
      throw new TypeError('messages and batches must be arrays of layouts (from layoutTable)');
    }
    this.buffer = buffer;
    this.schema = schema;
    this.messages = messages;
    this.batches = batches;
    this.numRows = batches.reduce((rows, batch) => rows + batch.numRows, 0);
    this.columns = schema.fields.map((field, index) => ({
      name: field.name,
      field,
      chunks: batches.map((batch) => batch.columns[index] as ColumnChunkLayout),
    }));
  }

  /**
   * Whether `value` is a DeviceTable made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isDeviceTable(value: unknown): value is DeviceTable {
    return typeof value === 'object' && value !== null && #brand in value;
  }

  /** Bytes of the stream. */
  get byteLength(): number {
    return this.buffer.size;
  }

  /** The column named `name`, or undefined. */
  getColumn(name: string): DeviceColumn | undefined {
    return this.columns.find((column) => column.name === name);
  }

  /**
   * A zero-copy device view of buffer `bufferIndex` of column `column` (name or index) in record
   * batch `batch` (default 0). Buffer order is Arrow's: validity first, then offsets/values.
   */
  columnBuffer(column: string | number, bufferIndex: number, batch = 0): CudaBuffer {
    if (typeof column !== 'string') checkInteger(column, 'column (a name or an index)');
    checkInteger(bufferIndex, 'bufferIndex');
    checkInteger(batch, 'batch');
    const found = typeof column === 'number' ? this.columns[column] : this.getColumn(column);
    const range = found?.chunks[batch]?.buffers[bufferIndex];
    if (!found || !range) {
      throw new RangeError(
        `no buffer ${String(bufferIndex)} of column ${String(column)} in batch ${String(batch)}`,
      );
    }
    return range.length === 0
      ? this.buffer.context.foreignBuffer(0n, 0)
      : this.buffer.slice(range.offset, range.length);
  }

  /** Frees the device memory (idempotent). */
  close(): void {
    this.buffer.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('DeviceTable', DeviceTable.isDeviceTable, (table) => ({
    numRows: table.numRows,
    columns: table.columns.length,
    byteLength: table.buffer.size,
    device: contextState(table.buffer.context).device.ordinal,
    closed: table.buffer.isClosed,
  }));

  /** `DeviceTable(numRows: 1000, columns: 3, byteLength: 9000, device: 0, closed: false)`. */
  toString(): string {
    return DeviceTable.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link DeviceTable.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return DeviceTable.#description.inspect(this, depth, options, nodeInspect);
  }
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(DeviceTable, DeviceTable.isDeviceTable, ['toString', inspect.custom]);

/**
 * Copies `table` to device memory of `context` as its Arrow IPC stream, in one allocation (or
 * into `options.output`, device memory you keep: see {@link TableUploadOptions}), column memory
 * copied once (see {@link UploadOptions} for how it is staged). Returns when every byte is in place.
 * @throws TypeError / RangeError / CudaStateError for bad arguments, before any driver call.
 */
export function tableToDevice(table: Table, context: Context, options?: TableUploadOptions): DeviceTable {
  if (!Context.isContext(context))
    throw new TypeError(`context must be a Context, got ${describeValue(context)}`);
  checkArrowObject(table, 'Table', 'table');
  const upload = checkUploadOptions(options);
  const { output } = checkOptions(options);
  // Into a given output, bodies whose place is known already start moving (upload-speculation.ts).
  const early = output === undefined ? undefined : startBodies(table, checkUploadOutput(output, context, 0));
  let layout: IpcStreamLayout;
  let given: CudaBuffer | undefined;
  try {
    layout = layoutTable(table);
    given = output === undefined ? undefined : checkUploadOutput(output, context, layout.byteLength);
  } catch (error) {
    if (early) waitForBodyCopies(early.started, early.memory);
    throw error;
  }
  const buffer = given ? given.slice(0, layout.byteLength) : context.deviceBuffer(layout.byteLength);
  try {
    const chunks = early ? remainingChunks(table, early.started, layout) : layout.chunks;
    writeRanges(buffer, chunks, upload);
    // writeRanges waits for the stream only when it copies something.
    if (early && chunks.length === 0) waitForBodyCopies(early.started, early.memory);
  } catch (error) {
    if (early) waitForBodyCopies(early.started, early.memory);
    buffer.close(); // frees new memory; only closes the view of an output
    throw error;
  }
  return new DeviceTable(buffer, table.schema, layout.messages, layout.batches);
}

function startBodies(table: Table, output: CudaBuffer): { started: StartedBodies; memory: MemoryBuffer } {
  const { memory, start } = memoryOf(output);
  return { started: startBodyCopies(table, memory, start, output.size), memory };
}

/**
 * Where {@link tableFromDevice} lands the stream before Arrow JS reads it:
 * - `'pinned'` (default): new page-locked memory, filled by one full-speed copy; the Table's
 *   columns are views of it (no further copy) and keep it alive.
 * - `'pageable'`: a new ordinary ArrayBuffer (the driver stages the copy).
 * - a {@link HostBuffer} at least as large as the stream: the Table views it; do not reuse it
 *   while the Table is in use.
 */
export type HostOutputChoice = 'pinned' | 'pageable' | HostBuffer;

/** Options of {@link tableFromDevice}. */
export interface DownloadOptions {
  /** See {@link HostOutputChoice}. Default `'pinned'`. */
  readonly output?: HostOutputChoice;
}

/**
 * Reads a table back from device memory: a {@link DeviceTable}, or a CudaBuffer / BufferReader
 * holding an Arrow IPC stream (the reader from its position to the end). Every message is
 * checked against the schema and its body before Arrow JS reads it.
 * @throws RangeError for a malformed stream; TypeError for the IPC file format or compressed batches.
 */
export function tableFromDevice(
  source: DeviceTable | CudaBuffer | BufferReader,
  options?: DownloadOptions,
): Table {
  const { output = 'pinned' } = checkOptions(options);
  if (!hostBufferBrand.has(output) && output !== 'pinned' && output !== 'pageable') {
    throw new TypeError(`output must be 'pinned', 'pageable' or a HostBuffer, got ${describeValue(output)}`);
  }
  let device: CudaBuffer;
  if (DeviceTable.isDeviceTable(source)) device = source.buffer;
  else if (cudaBufferBrand.has(source)) device = source;
  else if (BufferReader.isBufferReader(source)) device = source.readBuffer();
  else
    throw new TypeError(
      `source must be a DeviceTable, CudaBuffer or BufferReader, got ${describeValue(source)}`,
    );
  // A DeviceTable's layout says where to split a pipelined read; read now, as plain numbers,
  // since its getters (the caller's) could close the source or the output.
  const hint = DeviceTable.isDeviceTable(source) ? readLayoutHint(source.messages) : undefined;
  // A DeviceTable's or BufferReader's buffer is checked again: an object inheriting from one could name any object.
  cudaBufferBrand.check(device, 'the source buffer');
  const size = device.size;
  if (hostBufferBrand.has(output) && output.size < size) {
    throw new RangeError(`the output HostBuffer has ${output.size} bytes, the stream ${size}`);
  }
  if (device.isClosed) device.copyToHost(); // throws the closed error before any allocation
  const state = contextState(device.context);
  const bytes =
    output === 'pageable'
      ? new Uint8Array(size)
      : output === 'pinned'
        ? newHostBuffer(size, { device: state.device, allocator: 'pool' }).bytes
        : output.bytes.subarray(0, size);
  // Page-locked output of a large stream: its framing first, the bodies in flight while the
  // headers are checked and Arrow JS builds the Table (pipelined-read.ts).
  if (output !== 'pageable' && size >= PIPELINED_READ_MIN_BYTES) {
    return readTablePipelined(device, bytes, hint);
  }
  // A new pageable array has never been touched: memory's staged copy spreads its page faults
  // over several threads, where the driver's own copy takes them one by one.
  if (size > 0) readRange(device, 0, bytes);
  checkIpcStream(bytes);
  return arrowCall(() => tableFromIPC(bytes), 'the table');
}
